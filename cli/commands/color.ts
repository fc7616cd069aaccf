// Colour only on a TTY, and never when NO_COLOR is set (https://no-color.org).
export function useColor(stream: { isTTY?: boolean }): boolean {
  return Boolean(stream.isTTY) && !("NO_COLOR" in process.env && process.env.NO_COLOR !== "");
}
