// The vendors' pinned API documents catch both sides: a request out of the document (a parameter it
// does not have, a value past its bound, an enum it does not list) and a fake's answer out of the
// response schema. Each vendor's fake is wrapped so the credentials do not matter and, for the answer
// case, so its answer is broken on purpose; the server's check must name what is wrong.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { FAKES, startFake } from './dist/index.js';
import { VENDOR_SPECS_DIR } from './dist/spec-check.js';

/**
 * Per vendor: a request the document refuses (and what the violation must say), and an answer broken
 * against the response schema (a path the fake answers, the breakage, and what the violation must say).
 */
const CASES = {
  twilio: {
    request: {
      path: '/v1/Conversations?PageSize=500',
      says: /GET \/v1\/Conversations: request: \/query\/PageSize must be <= 100/,
    },
    answer: {
      path: '/v1/Conversations',
      breaks: (body) => {
        body.conversations[0].date_created = 12;
      },
      says: /answer 200: \/conversations\/\*\/date_created must be string/,
    },
  },
  discord: {
    request: { path: '/api/v10/users/@me/guilds?limit=1000', says: /request: \/query\/limit must be <= 200/ },
    answer: {
      path: '/api/v10/users/@me/guilds',
      breaks: (body) => {
        delete body[0].features;
      },
      says: /answer 200: \/\* must have required property 'features'/,
    },
  },
  sendbird: {
    request: {
      path: '/v3/users?active_mode=everyone',
      says: /request: \/query\/active_mode must be equal to one of the allowed values/,
    },
    answer: {
      path: '/v3/users',
      breaks: (body) => {
        body.users[0].user_id = 7;
      },
      says: /answer 200: \/users\/\*\/user_id must be string/,
    },
  },
  slack: {
    request: {
      path: '/conversations.members?channel=C1&limit=1000',
      says: /GET \/conversations\.members: request: \/query\/limit must be <= 999/,
    },
    answer: {
      path: '/users.list',
      breaks: (body) => {
        body.members = 'everyone';
      },
      says: /answer 200: \/members must be array/,
    },
  },
  stream: {
    request: {
      path: `/users?payload=${encodeURIComponent('{"filter_conditions":{},"limit":"many"}')}`,
      says: /request: .*limit/,
    },
    answer: {
      path: `/users?payload=${encodeURIComponent('{"filter_conditions":{}}')}`,
      breaks: (body) => {
        delete body.users[0].custom;
      },
      says: /answer 200: \/users\/\* must have required property 'custom'/,
    },
  },
};

/**
 * The vendor's fake, open to any caller, its JSON answers passed through `breakAnswer`.
 * @param {string} source
 * @param {(body: any) => void} [breakAnswer]
 */
function wrapped(source, breakAnswer = (_body) => {}) {
  const fake = FAKES[source];
  return {
    ...fake,
    authorized: () => true,
    async route(request, ctx) {
      const reply = await fake.route(request, ctx);
      if (reply?.status === 200 && typeof reply.body === 'object') breakAnswer(reply.body);
      return reply;
    },
  };
}

/** @param {(body: any) => void} [breakAnswer] */
async function serve(t, source, breakAnswer = undefined) {
  const fake = await startFake(wrapped(source, breakAnswer), {
    spec: true,
    world: { users: 6, channels: 4, messages: 40 },
  });
  t.after(() => fake.close());
  return fake;
}

// Discord's fake refuses a request without a bot's User-Agent, as Discord may.
const AS_A_BOT = { headers: { 'user-agent': 'DiscordBot (https://example.test, 1.0)' } };

const skipStream = existsSync(`${VENDOR_SPECS_DIR}stream/chat-openapi.json`)
  ? false
  : "Stream's document is not in the repository (its licence): test/vendor-specs/README.md";

for (const [source, { request, answer }] of Object.entries(CASES)) {
  const skip = source === 'stream' ? skipStream : false;

  test(`${source}: a request out of the vendor's document is caught`, { skip }, async (t) => {
    const fake = await serve(t, source);
    await (await fetch(`${fake.url}${request.path}`, AS_A_BOT)).arrayBuffer();
    const violations = fake.violations();
    assert.ok(
      violations.some((v) => request.says.test(v)),
      `expected ${request.says} in:\n${violations.join('\n')}`,
    );
  });

  test(`${source}: a fake's answer out of the vendor's response schema is caught`, { skip }, async (t) => {
    const clean = await serve(t, source);
    await (await fetch(`${clean.url}${answer.path}`, AS_A_BOT)).arrayBuffer();
    assert.deepEqual(clean.violations(), [], 'the fake as it is answers per the document');
    const broken = await serve(t, source, answer.breaks);
    await (await fetch(`${broken.url}${answer.path}`, AS_A_BOT)).arrayBuffer();
    const violations = broken.violations();
    assert.ok(
      violations.some((v) => answer.says.test(v)),
      `expected ${answer.says} in:\n${violations.join('\n')}`,
    );
  });
}

test('a path the document does not have is named as such', async (t) => {
  const fake = await serve(t, 'sendbird');
  await (await fetch(`${fake.url}/v3/no_such_resource`)).arrayBuffer();
  assert.deepEqual(fake.violations(), [
    "GET /v3/no_such_resource: request: no such operation in the vendor's document",
  ]);
});
