/** Home and About content that is an https address is shown in a frame instead of rendered. */
export function isFrameUrl(text: string): boolean {
  return /^https:\/\/\S+$/.test(text.trim());
}
