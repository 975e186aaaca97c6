import { containerStack } from "./container-stack";
import { githubClaims } from "./hostile-tenant/github-claims";
import { homes } from "./hostile-tenant/homes";
import { idsAndViews } from "./hostile-tenant/ids-and-views";
import { redaction } from "./hostile-tenant/redaction";
import { secretsAndProcesses } from "./hostile-tenant/secrets-and-processes";

/**
 * The platform tried as a hostile tenant would, through the public API only, on real
 * containers and the local forge, with two organisations: each section reproduces one
 * attack on a tenant boundary or on the box's trust edges and shows the refusal or the
 * recovery (docs/decisions/0015-tenant-boundaries.md). One stack serves every section.
 */
const boxes = containerStack({ SCRIPT_TIMEOUT_S: "3" });

secretsAndProcesses(boxes);
githubClaims(boxes);
idsAndViews(boxes);
homes(boxes);
redaction(boxes);
