// The v2 routes are registered twice: under /2.0 (the contract) and /api/2.0 (the default base
// path of the official v2 clients). The alias is left out of the OpenAPI document.
export interface V2RouteOptions {
  alias: boolean;
}
