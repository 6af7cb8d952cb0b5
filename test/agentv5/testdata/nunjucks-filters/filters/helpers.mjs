// Named exports: 5.x takes the export named after the filter when there is no default.
export function wrap(value) {
  return `[${value}]`;
}

export function fullName(person) {
  if (person === undefined) return 'nobody';
  return `${person.first} ${person.last}`;
}

export function nothing() {
  return null;
}

export function count(items) {
  return Array.isArray(items) ? items.length : -1;
}
