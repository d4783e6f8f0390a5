import AssetCodecs
import AssetWorkers

/// The typed errors of a decode or a transform as they cross from a worker process to its parent:
/// the worker sends `codec.<code>` or `imaging.<code>` and the message; the parent rebuilds the
/// same `CodecError` or ``ImagingError``.
enum ImagingWorkerErrors {
    /// A `CodecError` or ``ImagingError`` thrown in a worker, as the worker reports it.
    struct Reported: WorkerReportableError {
        let workerFailure: WorkerFailure
    }

    /// Runs `body` in a worker's job, reporting its typed errors so that the parent gets them back.
    static func reporting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CodecError {
            throw Reported(workerFailure: WorkerFailure(code: "codec." + error.shortDescription, message: error.message))
        } catch let error as ImagingError {
            throw Reported(workerFailure: WorkerFailure(code: "imaging." + error.shortDescription, message: error.message))
        }
    }

    /// The error of a job that did not come back: the source's own `CodecError` or
    /// ``ImagingError`` when the worker reported one, else ``ImagingError/decodeFailed`` (the
    /// worker crashed, timed out, or could not be started).
    static func error(_ error: WorkerError, job: String) -> any Error {
        if let failure = error.failure {
            let parts = failure.code.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2, parts[0] == "codec", let codec = CodecError(code: parts[1], message: failure.message) {
                return codec
            }
            if parts.count == 2, parts[0] == "imaging", let imaging = ImagingError(code: parts[1], message: failure.message) {
                return imaging
            }
        }
        return ImagingError.decodeFailed("the \(job) worker \(error)")
    }

    /// The message of a reply that is not what the job writes.
    static func malformed(_ job: String) -> ImagingError {
        .decodeFailed("the \(job) worker's reply is malformed")
    }
}
