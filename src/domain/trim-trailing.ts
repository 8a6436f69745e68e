// Removes a trailing run of the given characters, in one backward pass (the regex `/[…]+$/` is quadratic on a long run
// that is not at the end).
export function trimTrailing(text: string, characters: string): string {
  let end = text.length;
  while (end > 0 && characters.includes(text[end - 1]!)) end--;
  return text.slice(0, end);
}
