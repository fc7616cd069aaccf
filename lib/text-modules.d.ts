// Files imported `with { type: "text" }` (see scripts/gen-assets.ts) are strings.
declare module "*.py" {
  const text: string;
  export default text;
}
declare module "*.yaml" {
  const text: string;
  export default text;
}
declare module "*Dockerfile" {
  const text: string;
  export default text;
}
declare module "*.md" {
  const text: string;
  export default text;
}
