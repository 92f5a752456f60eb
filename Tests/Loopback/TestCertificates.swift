// Made by Certificates/make-test-certificates.py; run it again instead of editing.
// Test-only keys for servers on 127.0.0.1: they protect nothing.

/// PEM certificates and keys for the loopback server's HTTPS tests.
enum TestCertificatePEM {
    static let rootCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBrTCCAVSgAwIBAgIULImXMybpDtcXu3MvBNaj3zW+62gwCgYIKoZIzj0EAwIw
        NDEWMBQGA1UECgwNQ291cmllciB0ZXN0czEaMBgGA1UEAwwRQ291cmllciBUZXN0
        IFJvb3QwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBaMDQxFjAUBgNV
        BAoMDUNvdXJpZXIgdGVzdHMxGjAYBgNVBAMMEUNvdXJpZXIgVGVzdCBSb290MFkw
        EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEoaCbIKiAL4la97l5M27bwPj2tKR5Qm2E
        WVvxe8fGVp9YUqDHIpDnq8GtUUtfr27q/PeISE/dzvB0eXKDzQ1THaNCMEAwDwYD
        VR0TAQH/BAUwAwEB/zAdBgNVHQ4EFgQUM9oNfg3aS0CbdG603zSYdVGI5sYwDgYD
        VR0PAQH/BAQDAgGGMAoGCCqGSM49BAMCA0cAMEQCIF8cUGfnpcU5jSuKU3i0qp0H
        afaAe9H1/T2MxpUOEU4MAiAl7/RofM8JCQm2Gfubcr2UTXFUufAfF0IgOS/O8OKa
        gw==
        -----END CERTIFICATE-----
        """
    static let rootKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgQFI8BZz6NZ55gcte
        XOH4VlQWXu5SozQTt3koY9Ku3oChRANCAAShoJsgqIAviVr3uXkzbtvA+Pa0pHlC
        bYRZW/F7x8ZWn1hSoMcikOerwa1RS1+vbur894hIT93O8HR5coPNDVMd
        -----END PRIVATE KEY-----
        """
    static let validCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBwTCCAWagAwIBAgIUJwm4SWhQRom9UwnWoKwpX0X2BEwwCgYIKoZIzj0EAwIw
        NDEWMBQGA1UECgwNQ291cmllciB0ZXN0czEaMBgGA1UEAwwRQ291cmllciBUZXN0
        IFJvb3QwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBaMCgxFjAUBgNV
        BAoMDUNvdXJpZXIgdGVzdHMxDjAMBgNVBAMMBXZhbGlkMFkwEwYHKoZIzj0CAQYI
        KoZIzj0DAQcDQgAECLubayBzXMnCvk8DcM6g5HiSZBf9ZjCYgB2eP2S4I6maOwEe
        hFhYclJgV3aY2r3A6lDXVr6NznaCSSFOtIZjC6NgMF4wDAYDVR0TAQH/BAIwADAd
        BgNVHQ4EFgQUVhIPlB+g4DYAhjP6jgtkDys9EJMwEwYDVR0lBAwwCgYIKwYBBQUH
        AwEwGgYDVR0RBBMwEYIJbG9jYWxob3N0hwR/AAABMAoGCCqGSM49BAMCA0kAMEYC
        IQDoYEvMkL3YQlGgArMDFtPXdEvHvLQhHZ5Oe+7Df3kQFwIhAIDtt2i0pOGYVQqb
        G8MhFuXbj8VmAzVNqXN+xU5ow6Qd
        -----END CERTIFICATE-----
        """
    static let validKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg0YNqYkonRCg4yZdN
        rK6gwOs86CGSTTDaLIR0GY2OjgahRANCAAQIu5trIHNcycK+TwNwzqDkeJJkF/1m
        MJiAHZ4/ZLgjqZo7AR6EWFhyUmBXdpjavcDqUNdWvo3OdoJJIU60hmML
        -----END PRIVATE KEY-----
        """
    static let rotatedCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBwTCCAWigAwIBAgIUIxmaSrKg2Lm7f8BEcKHBqxTw2mgwCgYIKoZIzj0EAwIw
        NDEWMBQGA1UECgwNQ291cmllciB0ZXN0czEaMBgGA1UEAwwRQ291cmllciBUZXN0
        IFJvb3QwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBaMCoxFjAUBgNV
        BAoMDUNvdXJpZXIgdGVzdHMxEDAOBgNVBAMMB3JvdGF0ZWQwWTATBgcqhkjOPQIB
        BggqhkjOPQMBBwNCAASmXmWj3hdDcIkR/bb/Di6pxq0gyj2d7YMyGkP0vRBh8zzd
        GvbLEUhJkuo0Ezay/HoESljzhjpWe+6surxqwCzlo2AwXjAMBgNVHRMBAf8EAjAA
        MB0GA1UdDgQWBBS7TJqmMSsNpe2qFc8jPkXseEA+KTATBgNVHSUEDDAKBggrBgEF
        BQcDATAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZIzj0EAwIDRwAw
        RAIgaAErP85w2aOt3QspxzI1umkb6dslzfNTCieGio8EVVcCID+jyl+YLe9xX1ae
        1ZPIkuxG+m35e74K98nZyDwSnZ7S
        -----END CERTIFICATE-----
        """
    static let rotatedKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgvvRQuS80uDGtI3Dv
        uShSWIZJbF3yRg+y0au3VMEPtmGhRANCAASmXmWj3hdDcIkR/bb/Di6pxq0gyj2d
        7YMyGkP0vRBh8zzdGvbLEUhJkuo0Ezay/HoESljzhjpWe+6surxqwCzl
        -----END PRIVATE KEY-----
        """
    static let expiredCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBwTCCAWagAwIBAgIUIGAVfRkVs38CxmDwi0qtB1X+ib8wCgYIKoZIzj0EAwIw
        NDEWMBQGA1UECgwNQ291cmllciB0ZXN0czEaMBgGA1UEAwwRQ291cmllciBUZXN0
        IFJvb3QwHhcNMDAwMTAxMDAwMDAwWhcNMDEwMTAxMDAwMDAwWjAqMRYwFAYDVQQK
        DA1Db3VyaWVyIHRlc3RzMRAwDgYDVQQDDAdleHBpcmVkMFkwEwYHKoZIzj0CAQYI
        KoZIzj0DAQcDQgAEPXyNWQjckMkggbFgnvhlYoXT27KLkTHTLmcJbbVTc05r0IGE
        6G0Xp1O3kpdtWYvSR0JN71ixhNlBFYIevgcLGKNgMF4wDAYDVR0TAQH/BAIwADAd
        BgNVHQ4EFgQUp6V3wiRqiITj7DXM38sNxb6hL9IwEwYDVR0lBAwwCgYIKwYBBQUH
        AwEwGgYDVR0RBBMwEYIJbG9jYWxob3N0hwR/AAABMAoGCCqGSM49BAMCA0kAMEYC
        IQCVz/Ry+YJa2c7WkSiNWnkkEElfh4aLGFWxfSVtduyW9AIhALNHntF93N8zUTwh
        EnpSEJeQK9mxrKQUbWfX8MLcCSJG
        -----END CERTIFICATE-----
        """
    static let expiredKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+1skJ9pfL7dpRllH
        90CRIKeMU9+21DI9MmtGo/Yomz+hRANCAAQ9fI1ZCNyQySCBsWCe+GVihdPbsouR
        MdMuZwlttVNzTmvQgYTobRenU7eSl21Zi9JHQk3vWLGE2UEVgh6+BwsY
        -----END PRIVATE KEY-----
        """
    static let otherHostCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBwjCCAWigAwIBAgIUSe/5JPxw+o3JQrRzqjpeN3JFCfwwCgYIKoZIzj0EAwIw
        NDEWMBQGA1UECgwNQ291cmllciB0ZXN0czEaMBgGA1UEAwwRQ291cmllciBUZXN0
        IFJvb3QwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBaMCwxFjAUBgNV
        BAoMDUNvdXJpZXIgdGVzdHMxEjAQBgNVBAMMCW90aGVySG9zdDBZMBMGByqGSM49
        AgEGCCqGSM49AwEHA0IABJ4/4Bhfh6LEzu0pDlYgxymb6MZKS7GsIaMYvjFrW+Bb
        D4f6U1NBJBZ0bol8PCD0j56LSH32X7GI1r5KFYtiLoajXjBcMAwGA1UdEwEB/wQC
        MAAwHQYDVR0OBBYEFHyKDGBtN3MUOmji+BacJfssDyf8MBMGA1UdJQQMMAoGCCsG
        AQUFBwMBMBgGA1UdEQQRMA+CDW90aGVyLmV4YW1wbGUwCgYIKoZIzj0EAwIDSAAw
        RQIhAO/Z1AiXE6/ZygTslrcOienl8Tn4dXfT0bs1yGHKY0GdAiAJ9yk8xKz8owow
        Jah5wqI9FgGCmaH9/ddIQUlhCXbpEQ==
        -----END CERTIFICATE-----
        """
    static let otherHostKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgfiiFs1EUqvQ59X4P
        iYWHu01MK2xtFBNxlLPEChGlUtmhRANCAASeP+AYX4eixM7tKQ5WIMcpm+jGSkux
        rCGjGL4xa1vgWw+H+lNTQSQWdG6JfDwg9I+ei0h99l+xiNa+ShWLYi6G
        -----END PRIVATE KEY-----
        """
    static let selfSignedCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBvzCCAWSgAwIBAgIUXyYvS+sDq1W4qdXu4DGDfRqRxxEwCgYIKoZIzj0EAwIw
        LTEWMBQGA1UECgwNQ291cmllciB0ZXN0czETMBEGA1UEAwwKc2VsZlNpZ25lZDAg
        Fw0yMDAxMDEwMDAwMDBaGA8yMTIwMDEwMTAwMDAwMFowLTEWMBQGA1UECgwNQ291
        cmllciB0ZXN0czETMBEGA1UEAwwKc2VsZlNpZ25lZDBZMBMGByqGSM49AgEGCCqG
        SM49AwEHA0IABNuGtCfUcEnvm2FwytRehyDYGRtlK5pccmhRdrhnUuUoq5p3QvPF
        H8RPEAcIs6fkkuy5H/uRDaXvKr+7+stjylqjYDBeMAwGA1UdEwEB/wQCMAAwHQYD
        VR0OBBYEFNXuCVoV1AIM/w3LDJpZlNi+3KXMMBMGA1UdJQQMMAoGCCsGAQUFBwMB
        MBoGA1UdEQQTMBGCCWxvY2FsaG9zdIcEfwAAATAKBggqhkjOPQQDAgNJADBGAiEA
        rAfkcfowR3T3pdjjRy99+8qrizfTwwwe7D4vXoqNm64CIQCj5Lr9CapE78jWm+ac
        V0u9QoCAMGFNql6OCWaV0lQpog==
        -----END CERTIFICATE-----
        """
    static let selfSignedKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgs14MWQWjZUt5IO0I
        wr8gxQKxjW+7EqVkJ11EFnfZa2+hRANCAATbhrQn1HBJ75thcMrUXocg2BkbZSua
        XHJoUXa4Z1LlKKuad0LzxR/ETxAHCLOn5JLsuR/7kQ2l7yq/u/rLY8pa
        -----END PRIVATE KEY-----
        """
    static let otherRootCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBrzCCAVagAwIBAgIUB584FKkFL/gkVYbwftrU6FWpTTcwCgYIKoZIzj0EAwIw
        NTEWMBQGA1UECgwNQ291cmllciB0ZXN0czEbMBkGA1UEAwwSQ291cmllciBPdGhl
        ciBSb290MCAXDTIwMDEwMTAwMDAwMFoYDzIxMjAwMTAxMDAwMDAwWjA1MRYwFAYD
        VQQKDA1Db3VyaWVyIHRlc3RzMRswGQYDVQQDDBJDb3VyaWVyIE90aGVyIFJvb3Qw
        WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQvnR+QkQhXzWeHh/RXW+3pFm7UNyMu
        f2Gi3uViS9lWY2TApDui+qoAYQtpP1H4M2VUB9/JX+UGXuArPeiKDTi4o0IwQDAP
        BgNVHRMBAf8EBTADAQH/MB0GA1UdDgQWBBTye7A9aR7MRrnU0UVzDOqzxwZOJDAO
        BgNVHQ8BAf8EBAMCAYYwCgYIKoZIzj0EAwIDRwAwRAIgaeHOqrI5B0ffwrS9/Dau
        Q726CEH6VzB3KWj11XnkdhcCIF/DXvdqZaANzEG4GInrOU+/2CcH4iedPDdL88Ea
        8OeS
        -----END CERTIFICATE-----
        """
    static let otherRootKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQghhXe+xy9idLN9iXM
        AVQOXcWCGL6tW8UtPw6r+icq25ihRANCAAQvnR+QkQhXzWeHh/RXW+3pFm7UNyMu
        f2Gi3uViS9lWY2TApDui+qoAYQtpP1H4M2VUB9/JX+UGXuArPeiKDTi4
        -----END PRIVATE KEY-----
        """
    static let otherRootLeafCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIByTCCAW+gAwIBAgIULuUIb/wBxm/CIs30D6apSJ9S8ikwCgYIKoZIzj0EAwIw
        NTEWMBQGA1UECgwNQ291cmllciB0ZXN0czEbMBkGA1UEAwwSQ291cmllciBPdGhl
        ciBSb290MCAXDTIwMDEwMTAwMDAwMFoYDzIxMjAwMTAxMDAwMDAwWjAwMRYwFAYD
        VQQKDA1Db3VyaWVyIHRlc3RzMRYwFAYDVQQDDA1vdGhlclJvb3RMZWFmMFkwEwYH
        KoZIzj0CAQYIKoZIzj0DAQcDQgAEin8aJ0URzBYCGN0NEFdtyoAYKn/lrJODKRy6
        CKXHwGbGMvOdtqDUdpDQcfri5NIw2Cxiekp5xXRvFTyLY6kJHKNgMF4wDAYDVR0T
        AQH/BAIwADAdBgNVHQ4EFgQUM/USGUNB+OpfEF7toyc6e8oSz3EwEwYDVR0lBAww
        CgYIKwYBBQUHAwEwGgYDVR0RBBMwEYIJbG9jYWxob3N0hwR/AAABMAoGCCqGSM49
        BAMCA0gAMEUCIQC37fkHwFA5cyXcKqJZHMm0+MOs/W4WdCPRYMRgUVPsLgIgbT3z
        5SuVU5vdQJ0YKBGRREIYetzoxOKkDG5uHqCDIDI=
        -----END CERTIFICATE-----
        """
    static let otherRootLeafKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQglvlxYb+/AT9mnqFm
        N5xpJ3yQuj+p3P3cg0a7VOqMaKehRANCAASKfxonRRHMFgIY3Q0QV23KgBgqf+Ws
        k4MpHLoIpcfAZsYy8522oNR2kNBx+uLk0jDYLGJ6SnnFdG8VPItjqQkc
        -----END PRIVATE KEY-----
        """
}
