// Fills a running ternd with what an upgrade must keep: users with metadata, a group channel with
// messages, a reply, a reaction, a read and a delivery receipt, an uploaded file and its message, a
// ban, a mute, an application setting and a blocked user. Run by scripts/make-upgrade-fixture.sh
// against the ternd of the release before an upgrade; the upgrade test checks every item.
//   TERND_URL=http://127.0.0.1:PORT API_TOKEN=... node --experimental-websocket make-upgrade-fixture.mjs
const base = process.env.TERND_URL, token = process.env.API_TOKEN;
// Connection: close on every REST call: node's WebSocket may reuse a pooled connection, and ternd sends
// an upgrade asked on a used connection to a new one (307), which node's WebSocket does not follow.
const ws = base.replace(/^http/, 'ws');
async function platform(method, path, body) {
  const r = await fetch(base + path, { method, headers: { 'Api-Token': token, 'Content-Type': 'application/json', Connection: 'close' }, body: body ? JSON.stringify(body) : undefined });
  const j = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${JSON.stringify(j)}`);
  return j;
}
function login(user) {
  return new Promise((resolve, reject) => {
    const s = new WebSocket(`${ws}/?p=JS&pv=node&sv=4.0.0&ai=LOCAL&user_id=${user}`);
    const waiters = [];
    let buf = '';
    s.onmessage = (e) => {
      buf += e.data;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i); buf = buf.slice(i + 1);
        const cmd = line.slice(0, 4), body = JSON.parse(line.slice(4) || '{}');
        if (cmd === 'LOGI') resolve({ s, key: body.key, next: (c, pred) => new Promise((res) => waiters.push({ c, pred, res })) });
        for (const w of [...waiters]) if (w.c === cmd && (!w.pred || w.pred(body))) { waiters.splice(waiters.indexOf(w), 1); w.res(body); }
      }
    };
    s.onerror = reject;
  });
}
for (const [u, nick] of [['alice', 'Alice'], ['bob', 'Bob'], ['carol', 'Carol'], ['dave', 'Dave']]) {
  await platform('POST', '/v3/users', { user_id: u, nickname: nick, profile_url: '', metadata: { team: 'blue', user: u } });
}
const crew = await platform('POST', '/v3/group_channels', { user_ids: ['alice', 'bob', 'carol', 'dave'], channel_url: 'upgrade-crew', name: 'crew', custom_type: 'ops', data: 'kept' });
const texts = ['one', 'two', 'three'];
const sent = [];
for (const t of texts) sent.push(await platform('POST', '/v3/group_channels/upgrade-crew/messages', { message_type: 'MESG', user_id: 'alice', message: t }));
await platform('POST', '/v3/group_channels/upgrade-crew/messages', { message_type: 'MESG', user_id: 'bob', message: 'a reply', parent_message_id: sent[0].message_id });
await platform('POST', `/v3/group_channels/upgrade-crew/messages/${sent[1].message_id}/reactions`, { user_id: 'bob', reaction: 'thumbsup' });
await platform('PUT', '/v3/group_channels/upgrade-crew/messages/mark_as_read', { user_id: 'bob' });
// Carol's device acknowledges delivery; alice uploads a file and sends it.
const carol = await login('carol');
const alice = await login('alice');
const form = new FormData();
form.append('channel_url', 'upgrade-crew');
form.append('file', new Blob(['plans for the week\n'], { type: 'text/plain' }), 'plans.txt');
const up = await (await fetch(base + '/v3/storage/file', { method: 'POST', headers: { 'Session-Key': alice.key, Connection: 'close' }, body: form })).json();
const acked = alice.next('FILE', (b) => b.req_id === 'fixture-file'), received = carol.next('FILE');
alice.s.send(`FILE${JSON.stringify({ channel_url: 'upgrade-crew', url: up.url, name: 'plans.txt', type: 'text/plain', size: up.file_size, req_id: 'fixture-file' })}\n`);
const file = await acked, got = await received;
carol.s.send(`MACK${JSON.stringify({ channel_url: 'upgrade-crew', msg_id: got.msg_id })}\n`);
await new Promise((r) => setTimeout(r, 1000));
await platform('POST', '/v3/group_channels/upgrade-crew/ban', { user_id: 'dave', seconds: -1, description: 'fixture ban' });
await platform('POST', '/v3/group_channels/upgrade-crew/mute', { user_id: 'carol', seconds: -1, description: 'fixture mute' });
await platform('PUT', '/v3/applications/settings_global', { profanity_filter: { keywords: ['darn'], type: 1 } });
await platform('POST', '/v3/users/alice/block', { target_id: 'bob' });
alice.s.close(); carol.s.close();
console.log(JSON.stringify({ channel: crew.channel_url, messages: sent.map((m) => m.message_id), file: { id: file.msg_id, url: up.url } }));
