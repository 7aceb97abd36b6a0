export function loadConfig(text) {
  const parsed = JSON.parse(text);
  return { port: parsed.port, host: parsed.host.trim() };
}

export function merge(a, b) {
  return { ...a, ...b, merged: true };
}
