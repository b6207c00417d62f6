// The one message for a tool the build step did not run on, whatever way the tool was defined.
export const MISSING_BUILD_INFO_FIX =
  'has no parameter schema: the anytool build step did not run on its code, so nothing read its parameter types and JSDoc. ' +
  'Compile it with the build step (`anytool build`, or another way in from docs/build-setup.md), or pass explicit { description, parameters } (the function then receives the arguments object)';

export function missingBuildInfoMessage(label: string): string {
  return `${label} ${MISSING_BUILD_INFO_FIX}`;
}
