export interface Line {
  sku: string;
  cents: number;
}

export function parseLine(text: string): Line {
  const [sku, cents] = text.split(",");
  if (!sku) throw new Error(`no sku in "${text}"`);
  return { sku, cents: Number(cents) };
}

export function totals(lines: Line[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) out[l.sku] = l.cents;
  return out;
}
