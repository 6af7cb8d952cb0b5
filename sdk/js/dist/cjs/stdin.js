"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.readStdinSync = readStdinSync;
const node_fs_1 = require("node:fs");
// A parent that left stdin non-blocking makes readSync throw EAGAIN instead of waiting; sleep briefly
// and retry rather than fail.
const pause = new Int32Array(new SharedArrayBuffer(4));
/** Reads all of stdin synchronously as UTF-8 (works in Node and bun). */
function readStdinSync() {
    const chunks = [];
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
        let n;
        try {
            n = (0, node_fs_1.readSync)(0, buf, 0, buf.length, null);
        }
        catch (err) {
            const code = err.code;
            if (code === 'EAGAIN') {
                Atomics.wait(pause, 0, 0, 5);
                continue;
            }
            if (code === 'EOF')
                break; // Windows reports the end of a pipe this way
            throw err;
        }
        if (n === 0)
            break;
        chunks.push(buf.slice(0, n));
    }
    return new TextDecoder('utf-8').decode(concat(chunks));
}
function concat(chunks) {
    let size = 0;
    for (const c of chunks)
        size += c.length;
    const out = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
        out.set(c, at);
        at += c.length;
    }
    return out;
}
