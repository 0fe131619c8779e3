package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// clientAssertion signs an RFC 7523 client assertion (private_key_jwt):
// iss and sub the client id, aud the authorization server, valid five minutes.
func clientAssertion(keyPEM, clientID, audience string, now time.Time) (string, error) {
	block, _ := pem.Decode([]byte(keyPEM))
	if block == nil {
		return "", errors.New("client assertion: the private key is not PEM")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		if k, err2 := x509.ParseECPrivateKey(block.Bytes); err2 == nil {
			key = k
		} else {
			return "", fmt.Errorf("client assertion: private key: %w", err)
		}
	}
	var alg string
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve.Params().BitSize != 256 {
			return "", errors.New("client assertion: only P-256 EC keys (ES256) are supported")
		}
		alg = "ES256"
	case *rsa.PrivateKey:
		alg = "RS256"
	default:
		return "", fmt.Errorf("client assertion: unsupported key type %T", key)
	}
	enc := base64.RawURLEncoding
	header, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": randomString(16)})
	signing := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signing))
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		if err != nil {
			return "", fmt.Errorf("client assertion: %w", err)
		}
		// JWS wants the fixed-size r||s form, not ASN.1.
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
		if err != nil {
			return "", fmt.Errorf("client assertion: %w", err)
		}
	}
	return signing + "." + enc.EncodeToString(sig), nil
}
