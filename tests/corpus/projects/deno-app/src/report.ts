import { words } from "./slug.ts";

export function wordCount(text: string): number {
  let total = 0;
  const unused = words(text).length;
  for (const line of text.split("\n")) {
    total += words(line).length;
  }
  return total;
}

export function firstWord(text: string): string {
  try {
    return words(text)[0];
  } catch (_e) {
  }
  return "";
}

export function lastWord(text: string): string {
  let all = words(text);
  return all[all.length - 1] ?? "";
}
