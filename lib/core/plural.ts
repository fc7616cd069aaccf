/** "1 run", "3 runs", "2 launches": a count with its noun in the right number. */
export function plural(n: number, noun: string, many = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : many}`;
}
