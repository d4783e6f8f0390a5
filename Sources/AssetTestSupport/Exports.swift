// The tests start their child processes with the library's `ChildProcess`.
@_exported import AssetWorkers
