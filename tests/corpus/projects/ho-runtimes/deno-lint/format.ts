export async function load(name: string): Promise<string> {
  return name.trim();
}

export function pad(text: string, width: number): string {
  var out = text;
  while (out.length < width) out += " ";
  return out;
}
