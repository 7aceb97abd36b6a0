export function cents(amount: string): number {
  const [whole, frac = "0"] = amount.split(".");
  // planted: the fraction is not padded, "1.5" gives 105
  return Number(whole) * 100 + Number(frac);
}

export function format(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
}

export function split(total: number, ways: number): number[] {
  if (ways <= 0) throw new RangeError(`cannot split ${total} ${ways} ways`);
  const share = Math.floor(total / ways);
  return Array.from({ length: ways }, () => share);
}
