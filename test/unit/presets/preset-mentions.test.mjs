// The mention templates every preset writes (src/systems/shared/mentions.ts): which text is a mention,
// and the service's limit of 10 mentioned users a message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { placeMentions } from '../../../dist/systems/shared/mentions.js';

const user = (uid, token = `@${uid}`) => ({ uid, name: uid.toUpperCase(), token });

test('mentions: the longer name wins, a name inside a longer word is no mention', () => {
  const placed = placeMentions('@ann, @anna and @annabel', [user('ann'), user('anna')]);
  assert.equal(placed.text, '<@uid:ann>, <@uid:anna> and @annabel');
  assert.deepEqual(placed.users, [
    { uid: 'ann', name: 'ANN' },
    { uid: 'anna', name: 'ANNA' },
  ]);
  assert.equal(placeMentions('no one here', [user('ann')]), undefined, 'nothing placed: nothing to send');
  assert.equal(placeMentions('<@U1> twice <@U1>', [user('u1', '<@U1>')]).text, '<@uid:u1> twice <@uid:u1>');
});

test('mentions: at most 10 distinct users become templates; the rest stay as written', () => {
  const users = Array.from({ length: 12 }, (_, i) => user(`u${i}`));
  const text = users.map((u) => u.token).join(' ');
  const placed = placeMentions(`${text} @u0`, users);
  assert.equal(placed.users.length, 10);
  assert.equal(
    placed.text,
    `${users
      .slice(0, 10)
      .map((u) => `<@uid:${u.uid}>`)
      .join(' ')} @u10 @u11 <@uid:u0>`,
    'a user already placed is placed again',
  );
});
