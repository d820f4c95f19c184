export { discoveryStage as discoverySurface } from './discovery-urls.js'
