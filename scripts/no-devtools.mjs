// Stands in for react-devtools-core in the UI bundle: Ink imports it only when DEV=true.
export default { initialize() {}, connectToDevTools() {} };
