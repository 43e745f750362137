import Foundation
import SondeSuite
import Yams

/// The web-config file serve's `web-config:` names (`WebConfig`), read with the same problems as
/// the rest of the config: every key checked, files regular and bounded, hashes that are bcrypt.
extension SuiteReader {
    mutating func readWebConfig(at entry: Entry) -> WebConfig? {
        guard let path = text(entry.value, key: "web-config") else { return nil }
        let resolved = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
        let bytes: [UInt8]
        do throws(BoundedYAML.Problem) { bytes = try BoundedYAML.read(path: resolved, what: "the web-config file") } catch {
            report(entry.value.mark, key: "web-config", error.description)
            return nil
        }
        guard let yaml = String(validating: bytes, as: UTF8.self) else {
            report(entry.value.mark, key: "web-config", "\(resolved) is not UTF-8 text")
            return nil
        }
        let root: Node?
        do throws(SuiteLoader.Failure) { root = try SuiteLoader.compose(yaml, file: resolved, what: "the web-config file") } catch {
            for problem in error.problems { report(entry.value.mark, key: "web-config", problem.description) }
            return nil
        }
        guard case .mapping(let mapping)? = root else {
            report(entry.value.mark, key: "web-config", "\(resolved) is not a mapping of \(WebConfig.topKeys.joined(separator: ", "))")
            return nil
        }
        let inner = SuiteReader(file: resolved, folder: ((resolved as NSString).deletingLastPathComponent), environment: environment, document: document, kinds: kinds)
        var reader = inner
        let config = reader.readWebConfigMapping(mapping)
        problems += reader.problems
        return reader.problems.isEmpty ? config : nil
    }

    /// The keys of a web-config file (problems at their place in that file).
    mutating func readWebConfigMapping(_ mapping: Node.Mapping) -> WebConfig {
        var config = WebConfig()
        for (keyNode, value) in mapping {
            switch keyNode.scalar?.string ?? "" {
            case "tls_server_config":
                config.tls = readTLSServer(value)
            case "basic_auth_users":
                guard case .mapping(let users) = value else {
                    report(value.mark, key: "basic_auth_users", "expected a mapping of user names to bcrypt hashes")
                    continue
                }
                for (userNode, hashNode) in users.prefix(1000) {
                    guard let user = userNode.scalar?.string, !user.isEmpty, !user.contains(":"), !SpecRules.hasControlCharacters(user),
                          let hash = text(hashNode, key: "basic_auth_users") else { continue }
                    guard hash.count == 60, ["$2a$", "$2b$", "$2y$"].contains(String(hash.prefix(4))) else {
                        report(hashNode.mark, key: "basic_auth_users", "the hash of '\(user)' is not a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters); make one with htpasswd -nBC 10 \(user)")
                        continue
                    }
                    config.basicAuthUsers[user] = hash
                }
            case "bearer_token_file":
                config.bearerToken = secretFile(value, key: "bearer_token_file")
                if let token = config.bearerToken, token.count < 16 {
                    report(value.mark, key: "bearer_token_file", "the token is shorter than 16 characters")
                }
            case "http_server_config":
                break  // the toolkit's HTTP/2 and header settings: nothing sonde's HTTP/1.1 listener uses
            default:
                report(keyNode.mark, key: "web-config", "unknown key \(Self.describe(keyNode)) (allowed: \(WebConfig.topKeys.joined(separator: ", ")))")
            }
        }
        return config
    }

    mutating func readTLSServer(_ node: Node) -> WebConfig.TLS? {
        guard case .mapping(let mapping) = node else {
            report(node.mark, key: "tls_server_config", "expected a mapping with cert_file and key_file")
            return nil
        }
        var cert: String?, key: String?, minVersion: String?
        for (keyNode, value) in mapping {
            let field = keyNode.scalar?.string ?? ""
            switch field {
            case "cert_file", "key_file":
                guard let path = text(value, key: "tls_server_config." + field) else { continue }
                let resolved = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
                if let problem = SpecRules.readableFile(resolved, key: "tls_server_config." + field, maxBytes: 1 << 20) {
                    report(value.mark, key: "tls_server_config." + field, problem.message)
                } else if field == "cert_file" {
                    cert = resolved
                } else {
                    key = resolved
                }
            case "min_version":
                guard let version = text(value, key: "tls_server_config.min_version") else { continue }
                guard ["TLS12", "TLS13"].contains(version) else {
                    report(value.mark, key: "tls_server_config.min_version", "'\(version)' is not TLS12 or TLS13")
                    continue
                }
                minVersion = version
            default:
                let why = WebConfig.tlsKeysNotImplemented.contains(field) ? "not supported by sonde serve" : "unknown key"
                report(keyNode.mark, key: "tls_server_config", "\(why) \(Self.describe(keyNode)) (allowed: \(WebConfig.tlsKeys.joined(separator: ", ")))")
            }
        }
        guard let cert, let key else {
            report(node.mark, key: "tls_server_config", "needs both cert_file and key_file")
            return nil
        }
        return WebConfig.TLS(certFile: cert, keyFile: key, minVersion: minVersion)
    }
}
