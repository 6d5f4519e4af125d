import { fileURLToPath } from 'node:url';

/** The bundled demo dataset (real chest X-rays, CC BY-NC-SA; see examples/demo/README.md). */
export const DEMO_DATASET = fileURLToPath(new URL('../../../examples/demo', import.meta.url));
