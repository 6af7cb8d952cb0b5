import { parseCodeJudgePayload, kindOf } from './payload.js';
import { errorMessage } from './process-io.js';
import { serve } from './worker.js';
/**
 * Runs a prompt template: reads the payload from stdin, calls handler (awaiting it when it is
 * async) and prints the returned prompt. On error the message goes to stderr and the process exits
 * with code 1, which agentv reports with that message.
 *
 * ```ts
 * import { definePromptTemplate } from '@agentv/eval';
 * export default definePromptTemplate((ctx) => `Question: ${ctx.question}\nAnswer: ${ctx.candidateAnswer}`);
 * ```
 */
export function definePromptTemplate(handler) {
    return serve('definePromptTemplate', (io) => runPromptTemplate(handler, io));
}
export async function runPromptTemplate(handler, io) {
    try {
        if (typeof handler !== 'function')
            throw new TypeError(`definePromptTemplate needs a function, got ${kindOf(handler)}`);
        const input = parseCodeJudgePayload(io.readStdin());
        const prompt = await handler(input);
        if (typeof prompt !== 'string') {
            throw new TypeError(`prompt template must return a string, got ${prompt === undefined ? 'undefined' : kindOf(prompt)}`);
        }
        io.writeStdout(prompt + '\n'); // as console.log would; agentv trims the output
    }
    catch (err) {
        io.fail(errorMessage(err));
    }
}
