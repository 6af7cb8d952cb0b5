// script grader: exit-code convention. Exit 0 when the output is at most
// 20 characters long, 1 otherwise; stdout becomes the check text.
const data = JSON.parse(require("fs").readFileSync(0, "utf8"));
const output = data.output || "";
console.log(`output has ${output.length} characters`);
process.exit(output.length <= 20 ? 0 : 1);
