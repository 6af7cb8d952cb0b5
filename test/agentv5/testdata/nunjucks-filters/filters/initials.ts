// A TypeScript filter: the first letter of each word.
export default function initials(value: unknown): string {
  return String(value)
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0])
    .join('');
}
