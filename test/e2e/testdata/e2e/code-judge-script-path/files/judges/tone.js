let data = "";
process.stdin.on("data", (c) => (data += c));
process.stdin.on("end", () => console.log(JSON.stringify({ score: JSON.parse(data) ? 1 : 0, hits: ["js ran"] })));
