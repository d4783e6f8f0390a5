/// Where a load's answer came from.
public enum LoadOutcome: String, Sendable, Hashable, CaseIterable {
    /// A full response from the origin.
    case downloaded
    /// The cached body, after the origin confirmed it with `304 Not Modified`.
    case revalidated
    /// The cached body, used without contacting the origin.
    case cached
    /// The cached body served stale, as a directive or the strategy allows (the origin failed, was slow,
    /// or is being asked behind).
    case stale
    /// A local file (`file://`): read directly, never cached or revalidated.
    case localFile
}
