// Default export: the value upper-cased with a "!" (a number or list is made text first).
export default function shout(value) {
  return String(value).toUpperCase() + '!';
}
