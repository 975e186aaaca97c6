import { createHash, createHmac, pbkdf2Sync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseServerFirst, scramClientFinal } from "./scram";

/** RFC 7677, section 3: the SCRAM-SHA-256 exchange of user "user" with password "pencil". */
const RFC = {
  clientNonce: "rOprNGfwEbeRWgbNEkqO",
  serverFirst: "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
  clientFinal: "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
  serverSignature: "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
};

/** The same computation with Node's own primitives, as the driver's loop does it. */
function expected(clientNonce: string, password: string, serverFirst: string) {
  const { nonce, salt, iterations } = parseServerFirst(clientNonce, serverFirst);
  const salted = pbkdf2Sync(password, Buffer.from(salt, "base64"), iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const auth = `n=*,r=${clientNonce},${serverFirst},c=biws,r=${nonce}`;
  const signature = createHmac("sha256", createHash("sha256").update(clientKey).digest()).update(auth).digest();
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!)).toString("base64");
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return { response: `c=biws,r=${nonce},p=${proof}`, serverSignature: createHmac("sha256", serverKey).update(auth).digest("base64") };
}

describe("SCRAM-SHA-256 client (core/db/scram)", () => {
  it("HARDEN-5: answers RFC 7677's example exchange with its proof and expects its server signature", async () => {
    const final = await scramClientFinal(RFC.clientNonce, "pencil", RFC.serverFirst, "user");
    expect(final).toEqual({ response: RFC.clientFinal, serverSignature: RFC.serverSignature });
  });

  it("HARDEN-5: each connection's own nonce gets its own proof; the derived key serves the next connection of the same salt", async () => {
    const salt = Buffer.from("platform-salt-16").toString("base64");
    for (const nonce of ["first-connection-nonce", "second-connection-nonce"]) {
      const serverFirst = `r=${nonce}server-part,s=${salt},i=4096`;
      expect(await scramClientFinal(nonce, "s3cret", serverFirst)).toEqual(expected(nonce, "s3cret", serverFirst));
    }
  });

  it("HARDEN-5: a rotated password under the same salt is not answered with the old password's key", async () => {
    const serverFirst = `r=noncerotated,s=${Buffer.from("same-salt").toString("base64")},i=4096`;
    const before = await scramClientFinal("nonce", "old password", serverFirst);
    const after = await scramClientFinal("nonce", "new password", serverFirst);
    expect(after).toEqual(expected("nonce", "new password", serverFirst));
    expect(after.response).not.toBe(before.response);
  });

  it("HARDEN-5: a server message that does not extend the client's nonce, or lacks a salt or a count, is refused", async () => {
    const salt = Buffer.from("salt").toString("base64");
    await expect(scramClientFinal("mine", "pw", `r=theirs,s=${salt},i=4096`)).rejects.toThrow(/server nonce does not start with client nonce/);
    await expect(scramClientFinal("mine", "pw", `r=mine,s=${salt},i=4096`)).rejects.toThrow(/server nonce is too short/);
    await expect(scramClientFinal("mine", "pw", "r=mine-more,i=4096")).rejects.toThrow(/salt missing/);
    await expect(scramClientFinal("mine", "pw", `r=mine-more,s=${salt},i=0`)).rejects.toThrow(/iteration count/);
  });
});
