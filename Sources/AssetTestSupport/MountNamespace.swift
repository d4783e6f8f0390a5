import Foundation

/// Whether this machine lets a test mount a tmpfs in a private mount namespace (`unshare -m`): root,
/// or a user namespace that allows it. The disk-fault tests that need a full or read-only
/// filesystem skip themselves where it does not.
public enum MountNamespace {
    /// Probed once, by mounting and unmounting a 1 MiB tmpfs in a private namespace.
    public static let canMountTmpfs: Bool = {
        let probe = try? ChildProcess(
            "/bin/sh",
            ["-c", "command -v unshare >/dev/null && d=$(mktemp -d) && unshare -m --propagation private sh -c 'mount -t tmpfs -o size=1m tmpfs \"$0\" && umount \"$0\"' \"$d\"; s=$?; rmdir \"$d\" 2>/dev/null; exit $s"],
            stdout: .null, stderr: .null)
        return probe?.waitUntilExit() == .exited(0)
    }()

    /// Why such a test is skipped.
    public static let skipReason = "needs `unshare -m` and `mount` in a private mount namespace (root, or a user namespace that allows it); not permitted here"
}
