import { describe, expect, it } from "vitest";
import { locationHint, neonRegion } from "./location-hint";

describe("DATABASE_LOCATION_HINT from the Neon host", () => {
  it.each([
    ["postgresql://u:p@ep-x-123.us-east-2.aws.neon.tech/neondb?sslmode=require", "enam"],
    ["postgresql://u:p@ep-x-123-pooler.us-east-1.aws.neon.tech/neondb", "enam"],
    ["postgres://u:p@ep-x-123.us-west-2.aws.neon.tech/db", "wnam"],
    ["postgresql://u:p@ep-x-123.eu-central-1.aws.neon.tech/db", "weur"],
    ["postgresql://u:p@ep-x-123.eu-west-2.aws.neon.tech/db", "weur"],
    ["postgresql://u:p@ep-x-123.ap-southeast-1.aws.neon.tech/db", "apac"],
    ["postgresql://u:p@ep-x-123.ap-southeast-2.aws.neon.tech/db", "oc"],
    ["postgresql://u:p@ep-x-123.sa-east-1.aws.neon.tech/db", "sam"],
    ["postgresql://u:p@ep-x-123.eastus2.azure.neon.tech/db", "enam"],
    ["postgresql://u:p@ep-x-123.germanywestcentral.azure.neon.tech/db", "weur"],
  ])("%s gives %s", (url, hint) => {
    expect(locationHint(url)).toBe(hint);
  });

  it("gives none for a host that is not Neon's, an unknown region or no URL", () => {
    expect(locationHint("postgresql://postgres:pw@127.0.0.1:5432/guilds")).toBeUndefined();
    expect(locationHint("postgresql://u:p@db.example.com/db")).toBeUndefined();
    expect(locationHint("postgresql://u:p@ep-x.mars-north-1.aws.neon.tech/db")).toBeUndefined();
    expect(locationHint("not a url")).toBeUndefined();
  });

  it("exposes the cloud region, in Neon's and Cloudflare placement's spelling", () => {
    expect(neonRegion("postgresql://u:p@EP-X-123-POOLER.US-EAST-2.AWS.NEON.TECH/db")).toEqual({ cloud: "aws", region: "us-east-2", id: "aws:us-east-2" });
  });
});
