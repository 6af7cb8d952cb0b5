"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.processIO = void 0;
exports.errorMessage = errorMessage;
const stdin_js_1 = require("./stdin.js");
exports.processIO = {
    readStdin: stdin_js_1.readStdinSync,
    writeStdout(text) {
        process.stdout.write(text);
    },
    fail(message) {
        process.stderr.write(message.endsWith('\n') ? message : message + '\n');
        // exit now: a handler may have left timers or sockets open, and the run must not wait for
        // them until agentv's timeout kills it.
        process.exit(1);
    },
};
/** The text to show for a thrown value. */
function errorMessage(err) {
    if (err instanceof Error)
        return err.message || err.name || 'error';
    if (typeof err === 'string')
        return err || 'error';
    try {
        return JSON.stringify(err) ?? String(err);
    }
    catch {
        return String(err);
    }
}
