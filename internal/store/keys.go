package store

// Key design of the data table (pk, sk are strings; gsi1/gsi2 are sparse
// global secondary indexes with the same shape). Every item also carries
// "entity" (its type) and, where it expires, "expires_at" (epoch seconds,
// the table's TTL attribute).
//
//	entity            pk                              sk                 gsi1pk / gsi1sk                   gsi2pk / gsi2sk
//	project           PROJECT#<prj>                   PROJECT
//	api_key           APIKEY#<sha256(key)>            APIKEY
//	api_key_ref       PROJECT#<prj>                   APIKEY#<key id>
//	dashboard_session DSESSION#<sha256(token)>        DSESSION
//	dashboard_session_ref P#<prj>#DSESS               <dss ulid>
//	contact           P#<prj>#CT                      <ulid>
//	contact_tag       P#<prj>#CTTAG#<tag>             <ulid>
//	phone_guard       P#<prj>#PHONE#<e164>            PHONE
//	counter           P#<prj>#COUNTERS                contacts#<shard>
//	message           P#<prj>#MSG                     <ulid>             P#<prj>#CT#<ct>#MSG / <ulid>
//	catalog_item      P#<prj>#CATALOG                 <sku>
//	catalog_import    P#<prj>#IMP                     <ulid>
//	scenario_run      P#<prj>#RUN                     <ulid>
//	event             P#<prj>#EVT                     <ulid>             P#<prj>#EVT#<type> / <ulid>
//	webhook_endpoint  P#<prj>#WE                      <ulid>
//	delivery_request  P#<prj>#DREQ                    <ulid>
//	inspector         INSP#<insp>                     INSPECTOR
//	inspector_request INSP#<insp>                     REQ#<ulid>
//
// The deliveries table (no stream) holds the webhook pipeline's
// high-churn records:
//
//	delivery          P#<prj>#DLV                     <dlv ulid>         P#<prj>#DLV#S#<status> / <ulid>   P#<prj>#DLV#WE#<we> / <ulid>
//	attempt           P#<prj>#DLV#<dlv>               <ulid>
//
// An attempt that sent a request also carries gsi3pk P#<prj>#DLV#REQ#<req
// id> (gsi3: that key alone, projecting only the table's keys), so a
// request id finds its delivery: the attempt's pk names it.
//
// A <ulid> sort key orders items by creation time, so "newest first" is a
// descending Query and a created_at range is a BETWEEN on the sort key.

const (
	attrPK     = "pk"
	attrSK     = "sk"
	attrGSI1PK = "gsi1pk"
	attrGSI1SK = "gsi1sk"
	attrGSI2PK = "gsi2pk"
	attrGSI2SK = "gsi2sk"
	attrGSI3PK = "gsi3pk"

	// TTLAttribute is the TTL attribute of both tables (template.yaml's
	// TimeToLiveSpecification must name it; a test checks).
	TTLAttribute = "expires_at"

	// IndexGSI1 is the secondary index of the data table; the deliveries
	// table has IndexGSI1, IndexGSI2 and IndexGSI3 (attempts by request id).
	IndexGSI1 = "gsi1"
	IndexGSI2 = "gsi2"
	IndexGSI3 = "gsi3"
)

func projectPK(project string) string             { return "PROJECT#" + project }
func apiKeyPK(hash string) string                 { return "APIKEY#" + hash }
func scoped(project, kind string) string          { return "P#" + project + "#" + kind }
func contactTagPK(project, tag string) string     { return scoped(project, "CTTAG#"+tag) }
func phonePK(project, phone string) string        { return scoped(project, "PHONE#"+phone) }
func contactMessagesPK(project, ct string) string { return scoped(project, "CT#"+ct+"#MSG") }
func eventTypePK(project, typ string) string      { return scoped(project, "EVT#"+typ) }

const (
	kindContacts = "CT"
	kindCounters = "COUNTERS"
)

// key returns the primary key attribute map of an item.
func key(pk, sk string) map[string]string { return map[string]string{attrPK: pk, attrSK: sk} }
