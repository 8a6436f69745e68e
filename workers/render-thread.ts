// Piscina task entry: the render task (one spec, or a batch group of them), run on a worker thread.
export { renderThreadTask as default } from '../src/render/render-task.js';
