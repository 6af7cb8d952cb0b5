// The target client against a loopback server speaking the proxy's protocol.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createTargetClient, TargetProxyError } from '../dist/index.js';

function serve(handler) {
  return new Promise((resolve) => {
    const server = createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

test('no proxy configured: undefined', () => {
  assert.equal(createTargetClient({}), undefined);
  assert.equal(createTargetClient({ AGENTV_TARGET_PROXY_URL: 'http://127.0.0.1:1' }), undefined);
});

test('invoke sends the token and camelCases the answer', async () => {
  const seen = [];
  const server = await serve((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/invoke' && seen.length > 1) {
        res.statusCode = 429;
        res.end(JSON.stringify({ error: 'max_calls reached: 1 of 1 calls used, 1 more refused' }));
        return;
      }
      res.end(JSON.stringify({ outputMessages: [{ role: 'assistant', content: 'hi', tool_calls: [{ tool: 't', input: { a_b: 1 } }] }], rawText: 'hi' }));
    });
  });
  try {
    const { port } = server.address();
    const client = createTargetClient({ AGENTV_TARGET_PROXY_URL: `http://127.0.0.1:${port}/`, AGENTV_TARGET_PROXY_TOKEN: 'tok' });
    const r = await client.invoke({ question: 'q?', target: 'agent' });
    assert.equal(r.rawText, 'hi');
    assert.deepEqual(r.outputMessages, [{ role: 'assistant', content: 'hi', toolCalls: [{ tool: 't', input: { a_b: 1 } }] }]);
    assert.deepEqual(seen[0], { method: 'POST', url: '/invoke', auth: 'Bearer tok', body: '{"question":"q?","target":"agent"}' });
    await assert.rejects(client.invoke({ question: 'again' }), (err) => err instanceof TargetProxyError && err.status === 429 && /max_calls reached/.test(err.message));
  } finally {
    server.close();
  }
});
