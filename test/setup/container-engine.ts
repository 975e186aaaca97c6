import { prepareContainerEngine } from "../../scripts/containers/engine";

/**
 * Global setup of the image tests: the container engine exactly as the local stack prepares
 * it (installed and started where this machine allows, base image, images built), so those
 * tests run on a fresh machine too. Without an engine they skip and say why.
 */
export default async function setup() {
  const engine = await prepareContainerEngine({ log: (line) => console.log(`[containers] ${line}`) });
  if (!engine.enabled) console.warn(`[containers] image tests will skip: ${engine.reason}`);
}
