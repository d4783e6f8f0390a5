import AssetStorage
import Foundation

/// Writing results: JSON to standard output, messages to standard error.
enum CLIOutput {
    static func printJSON(_ object: Any) {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? JSONSerialization.data(withJSONObject: object, options: options) {
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }

    /// Prints JSON built by the library (keys in the order it chose) and a line break.
    static func printJSON(_ value: CompactJSON) {
        FileHandle.standardOutput.write(Data(value.bytes + [0x0A]))
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("assetpipe: \(message)\n".utf8))
    }

    /// A byte count for people: `1.5 MiB`.
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }
}
