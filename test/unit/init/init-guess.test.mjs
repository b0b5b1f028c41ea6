// init's column rules on their own: which entity a file's columns say, and every ambiguity named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guessEntity, guessMap } from '../../../dist/pipeline/init/guess-map.js';

const cols = (...names) => names.map((name) => ({ name, isObject: false, sub: false }));

test('the entity follows from the columns, names compared without case or separators', () => {
  assert.equal(guessEntity(cols('UserId', 'Display Name', 'e-mail', 'avatar_url')).entity, 'users');
  assert.equal(guessEntity(cols('room_id', 'title', 'purpose', 'creator')).entity, 'groups');
  assert.equal(guessEntity(cols('channel_id', 'user_id', 'role', 'joined_at')).entity, 'members');
  assert.equal(guessEntity(cols('id', 'user_id', 'channel_id', 'body', 'ts')).entity, 'messages');
  assert.equal(guessEntity(cols('foo', 'bar')).entity, undefined, 'nothing known: no entity');
});

test('two columns for one field, one column for two fields: both named, neither chosen', () => {
  const two = guessMap('messages', cols('id', 'user_id', 'channel_id', 'body', 'text', 'ts'), {});
  assert.deepEqual(two.ambiguities, [{ kind: 'field', field: 'data.text', columns: ['body', 'text'] }]);
  assert.equal(two.map['data.text'], undefined);
  const one = guessMap('users', cols('username', 'email'), {});
  assert.deepEqual(one.ambiguities, [{ kind: 'column', column: 'username', fields: ['uid', 'name'] }]);
  const picked = guessMap('users', cols('username', 'email'), { uid: 'username', name: 'username' });
  assert.deepEqual(picked.ambiguities, []);
  assert.deepEqual(picked.map, { uid: 'username', name: 'username', 'metadata.email': 'email' });
});

test('a receiver says its receiverType; a channel and a recipient column together are a choice', () => {
  assert.equal(guessMap('messages', cols('id', 'from', 'to', 'msg', 'date'), {}).values.receiverType, 'user');
  assert.equal(guessMap('messages', cols('id', 'from', 'room', 'msg', 'date'), {}).values.receiverType, 'group');
  const both = guessMap('messages', cols('id', 'from', 'channel_id', 'recipient_id', 'msg', 'date'), {});
  assert.deepEqual(both.ambiguities[0], { kind: 'field', field: 'receiver', columns: ['channel_id', 'recipient_id'] });
  assert.deepEqual(both.missing, [], 'named once, as a choice');
});

test('an exact API name wins over its synonyms; a required field with no column is missing', () => {
  const g = guessMap('users', cols('uid', 'user_id', 'name'), {});
  assert.deepEqual(g.ambiguities, []);
  assert.equal(g.placed.uid, 'uid');
  assert.deepEqual(g.kept, ['user_id']);
  assert.deepEqual(guessMap('messages', cols('user_id', 'channel_id', 'body', 'ts'), {}).missing, ['muid']);
});
