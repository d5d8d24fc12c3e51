// The contract's words (run states, layers, hazard classes, panels) as the site's page or the MCP App's bundle
// carries them (JSON in #hydrata-contract): hydrata_contract is their one spelling, so no script of either map
// writes a state or a layer name of its own.
export const contract = JSON.parse(document.getElementById("hydrata-contract").textContent);
export const runStatus = contract.runStatus;
export const terrainStatus = contract.terrainStatus;

// Whether a run has stopped for good: the contract's one list of terminal states, read by both maps.
export function isFinished(status) {
  return contract.terminalRunStates.indexOf(status) >= 0;
}
