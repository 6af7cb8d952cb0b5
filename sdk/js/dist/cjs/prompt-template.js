"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.definePromptTemplate = definePromptTemplate;
exports.runPromptTemplate = runPromptTemplate;
const payload_js_1 = require("./payload.js");
const process_io_js_1 = require("./process-io.js");
const worker_js_1 = require("./worker.js");
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
function definePromptTemplate(handler) {
    return (0, worker_js_1.serve)('definePromptTemplate', (io) => runPromptTemplate(handler, io));
}
async function runPromptTemplate(handler, io) {
    try {
        if (typeof handler !== 'function')
            throw new TypeError(`definePromptTemplate needs a function, got ${(0, payload_js_1.kindOf)(handler)}`);
        const input = (0, payload_js_1.parseCodeJudgePayload)(io.readStdin());
        const prompt = await handler(input);
        if (typeof prompt !== 'string') {
            throw new TypeError(`prompt template must return a string, got ${prompt === undefined ? 'undefined' : (0, payload_js_1.kindOf)(prompt)}`);
        }
        io.writeStdout(prompt + '\n'); // as console.log would; agentv trims the output
    }
    catch (err) {
        io.fail((0, process_io_js_1.errorMessage)(err));
    }
}
