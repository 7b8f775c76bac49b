#!/usr/bin/env node
// A peer driven by the official Sendbird JS SDK (@sendbird/chat v4), for end-to-end tests of
// `tern tail`: signs in as USER, opens the distinct 1:1 channel with TO, sends TEXT, starts
// typing, waits, stops typing, and exits.
//
// Run:  node --experimental-websocket scripts/sdk-conformance/sdk-peer.mjs
// Environment: TERND_URL (http://127.0.0.1:PORT), USER_ID, TO, TEXT, TERN_APP_ID (default LOCAL),
//              SENDBIRD_SDK (default /tmp/sendbird-js/index.js; never part of this repository).
// Output: `ok <step>` lines, then `done`; exit status 0 only if every step passed.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const env = process.env;
const url = (env.TERND_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
const entry = env.SENDBIRD_SDK || '/tmp/sendbird-js/index.js';
const watchdog = setTimeout(() => { console.log('FAIL watchdog'); process.exit(1); }, 60_000);
watchdog.unref();

async function load() {
    let file = path.resolve(entry);
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.js');
    const main = await import(pathToFileURL(file).href);
    const group = await import(pathToFileURL(path.join(path.dirname(file), `groupChannel${path.extname(file)}`)).href);
    const SendbirdChat = typeof main.default?.init === 'function' ? main.default : main.default?.default;
    const GroupChannelModule = group.GroupChannelModule ?? group.default?.GroupChannelModule;
    return { SendbirdChat, GroupChannelModule };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

try {
    const { SendbirdChat, GroupChannelModule } = await load();
    const sb = SendbirdChat.init({
        appId: env.TERN_APP_ID || 'LOCAL', modules: [new GroupChannelModule()], customApiHost: url,
        customWebSocketHost: url.replace(/^http/, 'ws'), newInstance: true, localCacheEnabled: false,
    });
    await sb.connect(env.USER_ID);
    console.log('ok connect');
    const channel = await sb.groupChannel.createChannel({ invitedUserIds: [env.TO], isDistinct: true });
    console.log('ok channel ' + channel.url);
    await new Promise((resolve, reject) => {
        channel.sendUserMessage({ message: env.TEXT || 'hello from the SDK' })
            .onSucceeded((m) => { console.log('ok sent ' + m.messageId); resolve(); })
            .onFailed((e) => reject(e));
    });
    await channel.startTyping();
    console.log('ok typing start');
    await sleep(1500);
    await channel.endTyping();
    console.log('ok typing end');
    await sleep(300);
    await sb.disconnect();
    console.log('done');
    process.exit(0);
} catch (err) {
    console.log('FAIL ' + (err?.code ?? '') + ' ' + (err?.message ?? err));
    process.exit(1);
}
