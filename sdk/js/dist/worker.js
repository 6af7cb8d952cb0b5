import { processIO } from './process-io.js';
/**
 * agentv's grader worker (internal/jsworker) sets this global before it imports a script, so that
 * defineCodeGrader and the other runners hand it their handler instead of reading stdin: the worker
 * loads the module once and runs the handler for each payload. Without the global (a script run on
 * its own), a runner reads stdin at once, as it always did.
 */
const WORKER = Symbol.for('agentv.worker');
/** Runs run on the process's stdin and stdout, or registers it with agentv's worker. */
export function serve(kind, run) {
    const hook = globalThis[WORKER];
    if (hook !== undefined && typeof hook.register === 'function') {
        hook.register(kind, run);
        return Promise.resolve();
    }
    return run(processIO);
}
