export function greet(name) {
  return `Hello, ${name.toLowerCase()}!`;
}

export function shout(name) {
  return greet(name).toUpperCase();
}
