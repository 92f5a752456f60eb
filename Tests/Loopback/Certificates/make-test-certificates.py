#!/usr/bin/env python3
"""Writes Tests/Loopback/TestCertificates.swift: the certificates and keys of
the loopback server's HTTPS tests, made once and committed, never fetched.

    python3 Tests/Loopback/Certificates/make-test-certificates.py

Needs the `cryptography` package (pip install cryptography). Every key is a
fresh P-256 key, so running it again changes every certificate; the tests
only rely on what each certificate is, never on its bytes.

What it makes (all for 127.0.0.1 and localhost unless said):
- root:       a private certificate authority, "Courier Test Root", valid 2020-2120
- valid:      a server certificate signed by root, valid 2020-2120
- rotated:    another one, with its own key (a server that rotated its key)
- expired:    signed by root, valid only during 2000
- otherHost:  signed by root, for other.example only
- selfSigned: a server certificate that signed itself
- otherRoot:  a second authority that no test trusts, and
  otherRootLeaf: a server certificate it signed
These keys protect nothing: they exist for tests on 127.0.0.1.

It also writes root.pem, and valid-chain.pem with valid-key.pem, beside
itself: the benchmark package's HTTPS server reads those.
"""
import datetime
import ipaddress
import pathlib

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "TestCertificates.swift"
LOCAL = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
LONG = (datetime.datetime(2020, 1, 1), datetime.datetime(2120, 1, 1))


def name(common_name):
    return x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Courier tests"),
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
    ])


def certificate(subject, key, issuer, issuer_key, validity, authority=False, names=None):
    builder = (
        x509.CertificateBuilder()
        .subject_name(name(subject))
        .issuer_name(name(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(validity[0])
        .not_valid_after(validity[1])
        .add_extension(x509.BasicConstraints(ca=authority, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    if authority:
        builder = builder.add_extension(
            x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False,
                          encipher_only=False, decipher_only=False),
            critical=True,
        )
    else:
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def new_key():
    return ec.generate_private_key(ec.SECP256R1())


def main():
    made = {}
    root_key = new_key()
    made["root"] = (certificate("Courier Test Root", root_key, "Courier Test Root", root_key, LONG, authority=True), root_key)
    for label, names, validity in [
        ("valid", LOCAL, LONG),
        ("rotated", LOCAL, LONG),
        ("expired", LOCAL, (datetime.datetime(2000, 1, 1), datetime.datetime(2001, 1, 1))),
        ("otherHost", [x509.DNSName("other.example")], LONG),
    ]:
        key = new_key()
        made[label] = (certificate(label, key, "Courier Test Root", root_key, validity, names=names), key)
    key = new_key()
    made["selfSigned"] = (certificate("selfSigned", key, "selfSigned", key, LONG, names=LOCAL), key)
    other_root_key = new_key()
    made["otherRoot"] = (
        certificate("Courier Other Root", other_root_key, "Courier Other Root", other_root_key, LONG, authority=True),
        other_root_key,
    )
    key = new_key()
    made["otherRootLeaf"] = (certificate("otherRootLeaf", key, "Courier Other Root", other_root_key, LONG, names=LOCAL), key)

    lines = [
        "// Made by Certificates/make-test-certificates.py; run it again instead of editing.",
        "// Test-only keys for servers on 127.0.0.1: they protect nothing.",
        "",
        "/// PEM certificates and keys for the loopback server's HTTPS tests.",
        "enum TestCertificatePEM {",
    ]
    for label, (cert, key) in made.items():
        cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode().strip()
        key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode().strip()
        lines += [f"    static let {label}Certificate = \"\"\"", *[f"        {l}" for l in cert_pem.splitlines()], "        \"\"\""]
        lines += [f"    static let {label}Key = \"\"\"", *[f"        {l}" for l in key_pem.splitlines()], "        \"\"\""]
    lines.append("}")
    OUTPUT.write_text("\n".join(lines) + "\n")

    def pem(label):
        return made[label][0].public_bytes(serialization.Encoding.PEM).decode()

    here = pathlib.Path(__file__).resolve().parent
    (here / "root.pem").write_text(pem("root"))
    (here / "valid-chain.pem").write_text(pem("valid") + pem("root"))
    (here / "valid-key.pem").write_text(made["valid"][1].private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode())


if __name__ == "__main__":
    main()
