// Piscina task entry: the render task, run on a worker thread.
export { renderTask as default } from '../src/render/render-task.js';
