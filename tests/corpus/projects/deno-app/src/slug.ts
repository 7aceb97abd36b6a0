export function slugify(title: string): string {
  // planted: spaces are dropped instead of becoming dashes
  return title.trim().toLowerCase().replace(/\s+/g, "");
}

export function words(title: string): string[] {
  return title.split(" ").filter((w) => w.length > 0);
}

export function initials(title: string): string {
  const parts = title.match(/\b\w/g);
  // planted: no word, no match: null has no join
  return parts!.join("").toUpperCase();
}
