// The sandbox's `onExchange` option, which the tests use to hold its exchanges to the vendor's documents
// (test/commands/service-spec.test.mjs): it is told each answered request, with the body as sent and the
// answer parsed, whether that answer was an object or JSON text made ahead (message reads); the control
// routes are not the service's, so they are left out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_KEY, sandbox } from '../../helpers.mjs';

test('tells each answered request, its body and the parsed answer, and not the control routes', async (t) => {
  const seen = [];
  const sb = await sandbox({ onExchange: (request, reply) => seen.push({ request, reply }) });
  t.after(() => sb.close());
  const send = (method, path, body, key = API_KEY) =>
    fetch(`${sb.url}${path}`, {
      method,
      headers: { apikey: key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((res) => res.json());
  const message = { muid: 'm1', sender: 'u1', receiverType: 'user', receiver: 'u2', sentAt: 1_700_000_000 };
  await send('POST', '/v3.0/data_import/users', {
    users: { u1: { uid: 'u1', name: 'A' }, u2: { uid: 'u2', name: 'B' } },
  });
  await send('POST', '/v3.0/data_import/messages', {
    messages: { m1: { ...message, type: 'text', data: { text: 'hi' } } },
  });
  await send('GET', '/v3/messages?limit=10');
  await send('GET', '/v3/users', undefined, 'not-the-key');
  await send('GET', '/__sandbox/stats');

  assert.deepEqual(
    seen.map(({ request, reply }) => `${request.method} ${request.url} ${reply.status}`),
    [
      'POST /v3.0/data_import/users 200',
      'POST /v3.0/data_import/messages 200',
      'GET /v3/messages?limit=10 200',
      'GET /v3/users 401',
    ],
  );
  const [users, , list, refused] = seen;
  assert.equal(JSON.parse(users.request.body.toString('utf8')).users.u2.name, 'B');
  assert.equal(users.request.headers.apikey, API_KEY);
  assert.equal(list.reply.body.data[0].muid, 'm1', 'a message list, made as JSON text, is told parsed');
  assert.equal(refused.reply.body.error.code, 'AUTH_ERR_APIKEY_NOT_FOUND');
});
