import { readStdinSync } from './stdin.js';
export const processIO = {
    readStdin: readStdinSync,
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
export function errorMessage(err) {
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
