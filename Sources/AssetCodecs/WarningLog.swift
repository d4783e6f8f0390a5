import CAssetCodecs

/// The warnings of a decode, gathered from the reports of one or more C calls: the first ones
/// word for word, the rest counted.
struct WarningLog: Sendable {
    /// Warnings kept word for word; later ones are only counted.
    static let capacity = 32

    private(set) var listed: [String] = []
    private(set) var unlisted = 0

    mutating func add(_ report: apc_report) {
        guard report.warning_count > 0 else { return }
        let words = CodecBridge.string(report.warnings).split(separator: "\n").map(String.init)
        unlisted += Int(report.warning_count) - words.count
        for word in words {
            if listed.count < Self.capacity { listed.append(word) } else { unlisted += 1 }
        }
    }

    mutating func add(_ other: [String]) {
        for word in other {
            if listed.count < Self.capacity { listed.append(word) } else { unlisted += 1 }
        }
    }

    /// The listed warnings, then "(N more warnings)" when some were only counted.
    var messages: [String] {
        unlisted > 0 ? listed + ["(\(unlisted) more warnings)"] : listed
    }
}
