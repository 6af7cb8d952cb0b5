// agentv's runner of AgentV 5.x `nunjucks_filters`: imports each filter module named on the
// command line (a JSON list of [name, path]) as 5.x does (the default export, else the export
// named after the filter), then answers one request per stdin line, {"chain": [names],
// "value": v} ("value" absent: undefined), with the text Nunjucks prints for the value passed
// through the filters in order. Answers are lines starting with the marker, so a filter's own
// console output cannot be taken for one. Plain JavaScript, so a copy named .mts runs on the
// TypeScript runtimes too.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const marker = 'AGENTV_FILTER ';
const say = (obj) => process.stdout.write(marker + JSON.stringify(obj) + '\n');
const message = (err) => (err instanceof Error ? err.message : String(err));

const filters = {};
for (const [name, file] of JSON.parse(process.argv[2] ?? '[]')) {
  let mod;
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (err) {
    say({ error: `filter '${name}': could not import ${file}: ${message(err)}`, name });
    process.exit(0);
  }
  const fn = mod.default ?? mod[name];
  if (typeof fn !== 'function') {
    say({ error: `filter '${name}': ${file} has no default export or export named '${name}' that is a function`, name });
    process.exit(0);
  }
  filters[name] = fn;
}
say({ ready: true });

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === '') continue;
  try {
    const req = JSON.parse(line);
    let value = Object.hasOwn(req, 'value') ? req.value : undefined;
    for (const name of req.chain) {
      value = filters[name](value);
    }
    // Nunjucks prints null and undefined as nothing and anything else as JavaScript's String().
    say({ text: value === null || value === undefined ? '' : String(value) });
  } catch (err) {
    say({ error: message(err) });
  }
}
