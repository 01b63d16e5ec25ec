package tpcds

// The value domains of the generated text columns. They hold the values
// the 99 queries filter on (with their validation parameters) among a few
// others, in the spirit of dsdgen's distributions (tpcds.idx), so that
// the selective predicates select some rows and reject others.

// category is an item category and its classes.
type category struct {
	name    string
	classes []string
}

var categories = []category{
	{"Women", []string{"dresses", "fragrances", "maternity", "swimwear"}},
	{"Men", []string{"accessories", "pants", "shirts", "sports-apparel"}},
	{"Children", []string{"infants", "newborn", "school-uniforms", "toddlers"}},
	{"Shoes", []string{"athletic", "kids", "mens", "womens"}},
	{"Music", []string{"classical", "country", "pop", "rock"}},
	{"Jewelry", []string{"birdal", "bracelets", "diamonds", "rings"}},
	{"Home", []string{"bedding", "decor", "furniture", "lighting"}},
	{"Sports", []string{"baseball", "football", "golf", "tennis"}},
	{"Books", []string{"computers", "reference", "self-help", "travel"}},
	{"Electronics", []string{"computers", "personal", "portable", "stereo"}},
}

var (
	brandStems = []string{"amalgimporto", "edu packscholar", "exportiimporto", "importoamalg",
		"scholaramalgamalg", "exportiunivamalg", "amalgamalg", "edu packamalg", "univbrand", "corpnameless", "namelessmaxi"}
	hotManufacts = []int{128, 350, 977, 738, 745, 750, 760, 770, 778, 129, 270, 821, 423, 668, 929, 677, 694, 808, 940, 816}
	sizes        = []string{"small", "medium", "large", "extra large", "petite", "N/A", "economy"}
	colors       = []string{"brown", "cornflower", "cyan", "deep", "floral", "forest", "frosted", "ghost",
		"honeydew", "khaki", "light", "midnight", "orange", "papaya", "peach", "powder", "snow",
		"slate", "blanched", "burnished", "purple", "burlywood", "indian", "spring", "navy", "olive"}
	units = []string{"Box", "Bunch", "Bundle", "Cup", "Dozen", "Dram", "Each", "Gross", "Lb", "N/A",
		"Ounce", "Oz", "Pallet", "Pound", "Tbl", "Ton", "Carton", "Case"}
	educations    = []string{"Primary", "Secondary", "College", "2 yr Degree", "4 yr Degree", "Advanced Degree", "Unknown"}
	buyPotentials = []string{">10000", "5001-10000", "1001-5000", "501-1000", "0-500", "Unknown"}
	shipTypes     = []string{"EXPRESS", "NEXT DAY", "OVERNIGHT", "TWO DAY", "REGULAR", "LIBRARY"}
	shipCodes     = []string{"AIR", "SURFACE", "SEA", "BIKE", "HAND CARRY"}
	carriers      = []string{"DHL", "BARIAN", "UPS", "FEDEX", "AIRBORNE", "USPS", "ZOUROS", "MSC", "LATVIAN",
		"ALLIANCE", "ORIENTAL", "BOXBUNDLES", "GREAT EASTERN", "DIAMOND", "RUPEKSA", "GERMA",
		"HARMSTORF", "PRIVATECARRIER", "ZHOU", "TBS"}
	warehouseNames = []string{"Conventional childr", "Important issues liv", "Doors canno", "Bad cards must make.", "Operations"}
	syllables      = []string{"ought", "able", "pri", "ese", "anti", "cally", "ation", "eing", "bar", "n st"}
	states         = []string{"TN", "GA", "TX", "OH", "KY", "VA", "MS", "IN", "IL", "CA", "WA", "OR", "NM",
		"ND", "OK", "NJ", "MN", "LA", "IA", "CT", "CO", "AR", "WI"}
	counties = []string{"Williamson County", "Rush County", "Toole County", "Jefferson County",
		"Dona Ana County", "La Porte County", "Orange County", "Bronx County", "Franklin Parish", "Ziebach County"}
	cities = []string{"Midway", "Fairview", "Edgewood", "Oak Grove", "Five Points", "Pleasant Hill", "Centerville", "Riverside"}
	// zips are q08's, q15's and q45's, so that their zip lists match some.
	zips = []string{"24128", "76232", "65084", "87816", "83926", "77556", "20548", "26231", "43848",
		"15126", "91137", "61265", "98294", "25782", "80348", "81792", "83405", "85392", "85460",
		"85669", "86197", "86475", "88274", "30059", "35709", "45281"}
	countries  = []string{"UNITED STATES", "CANADA", "MEXICO", "GERMANY", "FRANCE", "JAPAN", "BRAZIL", "INDIA"}
	firstNames = []string{"James", "Mary", "John", "Patricia", "Robert", "Linda", "Michael", "Barbara",
		"William", "Elizabeth", "David", "Jennifer", "Richard", "Maria", "Joseph", "Susan"}
	lastNames = []string{"Smith", "Johnson", "Williams", "Jones", "Brown", "Davis", "Miller", "Wilson",
		"Moore", "Taylor", "Anderson", "Thomas", "Jackson", "White", "Harris", "Martin"}
	words = []string{"able", "about", "above", "across", "after", "again", "against", "almost",
		"alone", "along", "already", "also", "although", "always", "among", "another", "anyone",
		"around", "because", "before", "behind", "below", "beside", "between", "beyond", "both",
		"during", "each", "either", "enough", "every", "first", "further", "great", "however"}
)
