package tpch

// The value lists of the TPC-H specification (clause 4.2.2.13 and 4.2.3),
// used uniformly.

// regions are the five regions, by key.
var regions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}

// nations are the 25 nations, by key, with their region keys.
var nations = []struct {
	name   string
	region int
}{
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
	{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
	{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
	{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
	{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}

// colors are the 92 words part names are made of (P_NAME).
var colors = []string{
	"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue",
	"blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral",
	"cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick",
	"floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew",
	"hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon", "light", "lime", "linen",
	"magenta", "maroon", "medium", "metallic", "midnight", "mint", "misty", "moccasin", "navajo",
	"navy", "olive", "orange", "orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder",
	"puff", "purple", "red", "rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell",
	"sienna", "sky", "slate", "smoke", "snow", "spring", "steel", "tan", "thistle", "tomato",
	"turquoise", "violet", "wheat", "white", "yellow",
}

// The three syllables of P_TYPE (6 x 5 x 5 = 150 types).
var (
	typeS1 = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	typeS2 = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	typeS3 = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
)

// The two syllables of P_CONTAINER (5 x 8 = 40 containers).
var (
	containerS1 = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	containerS2 = []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
)

var (
	segments     = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	priorities   = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	instructions = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	shipModes    = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
)

// The word classes of the comment grammar (clause 4.2.2.14).
var (
	nouns = []string{
		"foxes", "ideas", "theodolites", "pinto beans", "instructions", "dependencies", "excuses",
		"platelets", "asymptotes", "courts", "dolphins", "multipliers", "sauternes", "warthogs",
		"frets", "dinos", "attainments", "somas", "Tiresias'", "patterns", "forges", "braids",
		"hockey players", "frays", "warhorses", "dugouts", "notornis", "epitaphs", "pearls", "tithes",
		"waters", "orbits", "gifts", "sheaves", "depths", "sentiments", "decoys", "realms", "pains",
		"grouches", "escapades", "accounts", "packages", "requests", "deposits",
	}
	verbs = []string{
		"sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect",
		"integrate", "maintain", "nod", "was", "lose", "sublate", "solve", "thrash", "promise",
		"engage", "hinder", "print", "x-ray", "breach", "eat", "grow", "impress", "mold", "poach",
		"serve", "run", "dazzle", "snooze", "doze", "unwind", "kindle", "play", "hang", "believe",
		"doubt",
	}
	adjectives = []string{
		"furious", "sly", "careful", "blithe", "quick", "fluffy", "slow", "quiet", "ruthless", "thin",
		"close", "dogged", "daring", "brave", "stealthy", "permanent", "enticing", "idle", "busy",
		"regular", "final", "ironic", "even", "bold", "silent", "pending", "special", "express",
		"unusual",
	}
	adverbs = []string{
		"sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely", "quickly",
		"fluffily", "slowly", "quietly", "ruthlessly", "thinly", "closely", "doggedly", "daringly",
		"bravely", "stealthily", "permanently", "enticingly", "idly", "busily", "regularly",
		"finally", "ironically", "evenly", "boldly", "silently",
	}
	prepositions = []string{
		"about", "above", "according to", "across", "after", "against", "along", "alongside of",
		"among", "around", "at", "atop", "before", "behind", "beneath", "beside", "besides",
		"between", "beyond", "by", "despite", "during", "except", "for", "from", "in place of",
		"inside", "instead of", "into", "near", "of", "on", "outside", "over", "past", "since",
		"through", "throughout", "to", "toward", "under", "until", "up", "upon", "without", "with",
		"within",
	}
	auxiliaries = []string{
		"do", "may", "might", "shall", "will", "would", "can", "could", "should", "ought to", "must",
		"will have to", "shall have to", "could have to", "should have to", "must have to",
		"need to", "try to",
	}
	terminators = []string{".", ";", ":", "?", "!", "--"}
)
