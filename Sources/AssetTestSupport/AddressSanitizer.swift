#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this process runs under AddressSanitizer (`swift test --sanitize=address`, as
/// `scripts/test-asan` does).
///
/// Tests that bound a process's peak memory skip themselves there: ASan's shadow memory and its
/// quarantine of freed blocks add hundreds of MiB that say nothing about the code under test.
public enum AddressSanitizer {
    /// True when the ASan runtime is linked in (its `__asan_init` symbol resolves).
    public static let isActive: Bool = {
        #if os(Linux)
        return dlsym(nil, "__asan_init") != nil  // nil is RTLD_DEFAULT on glibc
        #else
        return dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__asan_init") != nil  // RTLD_DEFAULT on Darwin
        #endif
    }()
}
