export const DEFAULT_CONFIG_PATH = 'config/portcullis.yaml'
