package expr

import (
	"sort"
	"strings"

	"github.com/eddydb/eddy/repr"
)

// pg_get_keywords(): PostgreSQL 15's SQL keywords (the grammar pg_query
// parses), each with its category (catcode: U unreserved, C column name,
// T type or function name, R reserved) and whether it may be a bare
// column label. pgjdbc's getSQLKeywords reads it.

// keywords are the words by category letter and bare-label flag (t/f).
var keywords = map[string]string{
	"Cf": `char character precision`,
	"Ct": `between bigint bit boolean coalesce dec decimal exists extract float greatest grouping inout int integer interval least national nchar none normalize nullif numeric out overlay position real row setof smallint substring time timestamp treat trim values varchar xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable`,
	"Rf": `array as create except fetch for from grant group having intersect into limit offset on order returning to union where window with`,
	"Rt": `all analyse analyze and any asc asymmetric both case cast check collate column constraint current_catalog current_date current_role current_time current_timestamp current_user default deferrable desc distinct do else end false foreign in initially lateral leading localtime localtimestamp not null only or placing primary references select session_user some symmetric table then trailing true unique user using variadic when`,
	"Tf": `isnull notnull overlaps`,
	"Tt": `authorization binary collation concurrently cross current_schema freeze full ilike inner is join left like natural outer right similar tablesample verbose`,
	"Uf": `day filter hour minute month over second varying within without year`,
	"Ut": `abort absolute access action add admin after aggregate also alter always asensitive assertion assignment at atomic attach attribute backward before begin breadth by cache call called cascade cascaded catalog chain characteristics checkpoint class close cluster columns comment comments commit committed compression configuration conflict connection constraints content continue conversion copy cost csv cube current cursor cycle data database deallocate declare defaults deferred definer delete delimiter delimiters depends depth detach dictionary disable discard document domain double drop each enable encoding encrypted enum escape event exclude excluding exclusive execute explain expression extension external family finalize first following force forward function functions generated global granted groups handler header hold identity if immediate immutable implicit import include including increment index indexes inherit inherits inline input insensitive insert instead invoker isolation key label language large last leakproof level listen load local location lock locked logged mapping match matched materialized maxvalue merge method minvalue mode move name names new next nfc nfd nfkc nfkd no normalized nothing notify nowait nulls object of off oids old operator option options ordinality others overriding owned owner parallel parameter parser partial partition passing password plans policy preceding prepare prepared preserve prior privileges procedural procedure procedures program publication quote range read reassign recheck recursive ref referencing refresh reindex relative release rename repeatable replace replica reset restart restrict return returns revoke role rollback rollup routine routines rows rule savepoint schema schemas scroll search security sequence sequences serializable server session set sets share show simple skip snapshot sql stable standalone start statement statistics stdin stdout storage stored strict strip subscription support sysid system tables tablespace temp template temporary text ties transaction transform trigger truncate trusted type types uescape unbounded uncommitted unencrypted unknown unlisten unlogged until update vacuum valid validate validator value version view views volatile whitespace work wrapper write xml yes zone`,
}

// keywordDescs describe the categories (catdesc).
var keywordDescs = map[byte]string{'U': "unreserved", 'C': "unreserved (cannot be function or type name)",
	'T': "reserved (can be function or type name)", 'R': "reserved"}

// keywordRows are pg_get_keywords' rows in word order.
var keywordRows = func() [][]repr.Datum {
	var rows [][]repr.Datum
	for k, words := range keywords {
		bare, barDesc := k[1] == 't', "requires AS"
		if bare {
			barDesc = "can be bare label"
		}
		for _, w := range strings.Fields(words) {
			rows = append(rows, []repr.Datum{repr.NewText(w), repr.NewText(k[:1]), repr.NewBool(bare),
				repr.NewText(keywordDescs[k[0]]), repr.NewText(barDesc)})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0].Text() < rows[j][0].Text() })
	return rows
}()

func init() {
	tableFn("pg_get_keywords", []TableCol{{Name: "word", T: repr.Text}, {Name: "catcode", T: repr.QChar},
		{Name: "barelabel", T: repr.Bool}, {Name: "catdesc", T: repr.Text}, {Name: "baredesc", T: repr.Text}},
		func(_ *Ctx, _ []repr.Datum, emit func([]repr.Datum) error) error {
			for _, r := range keywordRows {
				if err := emit(r); err != nil {
					return err
				}
			}
			return nil
		}).Present = 1
}
