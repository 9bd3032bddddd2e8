// Stands in for is-in-ci in the UI bundle: the UI runs only when stdin and stdout are terminals,
// where a CI variable in the environment must not switch Ink to its non-interactive output.
export default false;
