package tpcds

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// dimensionOrder lists the dimensions in generation order: a dimension
// comes after those its keys refer to.
var dimensionOrder = []string{
	"date_dim", "time_dim", "income_band", "reason", "ship_mode", "warehouse",
	"customer_demographics", "household_demographics", "customer_address", "customer",
	"item", "promotion", "store", "call_center", "catalog_page", "web_site", "web_page",
}

// dimRows is each dimension's row count at scale 1 (date_dim and
// time_dim are calendars, income_band is TPC-DS's 20 bands).
var dimRows = map[string]int{
	"income_band": 20, "reason": 35, "ship_mode": 20, "warehouse": 5,
	"customer_demographics": 1000, "household_demographics": 720, "customer_address": 500,
	"customer": 100, "item": 400, "promotion": 30, "store": 12, "call_center": 6,
	"catalog_page": 100, "web_site": 6, "web_page": 30,
}

// dimension generates one dimension table and records its keys.
func (g *gen) dimension(name string) {
	r := g.rng(name)
	t := g.table(name)
	switch name {
	case "date_dim":
		for d := firstDate; d <= lastDate; d++ {
			t.Rows = append(t.Rows, g.row(r, name, dateRow(d)))
			g.keys[name] = append(g.keys[name], dateSK(d))
		}
		return
	case "time_dim":
		for m := 0; m < 24*60; m++ {
			t.Rows = append(t.Rows, g.row(r, name, timeRow(m)))
			g.keys[name] = append(g.keys[name], m*60)
		}
		return
	}
	n := dimRows[name]
	if name != "income_band" && name != "reason" && name != "ship_mode" {
		n *= g.cfg.Scale
	}
	rule := dimRules[name]
	for i := 1; i <= n; i++ {
		vals := map[string]string{g.defs[name].Columns[0].Name: fmt.Sprint(i), g.defs[name].Columns[1].Name: id(i)}
		rule(g, r, i, vals)
		t.Rows = append(t.Rows, g.row(r, name, vals))
		g.keys[name] = append(g.keys[name], i)
	}
}

// dateRow returns the columns of day d as dsdgen computes them: month,
// week and quarter sequences count from 1900 (month 1200 is January 2000).
func dateRow(d int) map[string]string {
	t := dateOf(d)
	y, m, dom := t.Year(), int(t.Month()), t.Day()
	q := (m-1)/3 + 1
	first := days(y, m, 1)
	last := days(y, m+1, 1) - 1
	weekSeq := (d-days(1900, 1, 1)+1)/7 + 1
	weekend := "N"
	if t.Weekday() == time.Saturday || t.Weekday() == time.Sunday {
		weekend = "Y"
	}
	holiday := "N"
	if (m == 12 && dom == 25) || (m == 1 && dom == 1) || (m == 7 && dom == 4) {
		holiday = "Y"
	}
	s := fmt.Sprint
	return map[string]string{
		"d_date_sk": s(dateSK(d)), "d_date_id": id(dateSK(d)), "d_date": t.Format("2006-01-02"),
		"d_month_seq": s((y-1900)*12 + m - 1), "d_week_seq": s(weekSeq), "d_quarter_seq": s((y-1900)*4 + q),
		"d_year": s(y), "d_dow": s(int(t.Weekday())), "d_moy": s(m), "d_dom": s(dom), "d_qoy": s(q),
		"d_fy_year": s(y), "d_fy_quarter_seq": s((y-1900)*4 + q), "d_fy_week_seq": s(weekSeq),
		"d_day_name": t.Weekday().String(), "d_quarter_name": fmt.Sprintf("%dQ%d", y, q),
		"d_holiday": holiday, "d_weekend": weekend, "d_following_holiday": "N",
		"d_first_dom": s(dateSK(first)), "d_last_dom": s(dateSK(last)),
		"d_same_day_ly": s(dateSK(d) - 365), "d_same_day_lq": s(dateSK(d) - 91),
		"d_current_day": "N", "d_current_week": "N", "d_current_month": "N",
		"d_current_quarter": "N", "d_current_year": "N",
	}
}

// timeRow returns the columns of minute m of the day (t_time_sk counts
// seconds, as in dsdgen; the generator keeps one row per minute).
func timeRow(m int) map[string]string {
	h := m / 60
	s := fmt.Sprint
	ampm, shift, sub, meal := "AM", "third", "night", null
	if h >= 12 {
		ampm = "PM"
	}
	switch {
	case h >= 8 && h < 16:
		shift = "first"
	case h >= 16:
		shift = "second"
	}
	switch {
	case h >= 6 && h < 12:
		sub = "morning"
	case h >= 12 && h < 17:
		sub = "afternoon"
	case h >= 17 && h < 21:
		sub = "evening"
	}
	switch {
	case h >= 6 && h < 9:
		meal = "breakfast"
	case h >= 11 && h < 14:
		meal = "lunch"
	case h >= 17 && h < 20:
		meal = "dinner"
	}
	return map[string]string{
		"t_time_sk": s(m * 60), "t_time_id": id(m*60 + 1), "t_time": s(m * 60), "t_hour": s(h),
		"t_minute": s(m % 60), "t_second": "0", "t_am_pm": ampm, "t_shift": shift,
		"t_sub_shift": sub, "t_meal_time": meal,
	}
}

// dimRules set the columns of a dimension row that queries read; the
// others take fill's defaults.
var dimRules = map[string]func(g *gen, r *rand.Rand, i int, v map[string]string){
	"income_band": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["ib_lower_bound"] = fmt.Sprint((i-1)*10000 + min(i-1, 1))
		v["ib_upper_bound"] = fmt.Sprint(i * 10000)
	},
	"reason": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["r_reason_desc"] = fmt.Sprintf("reason %d", i)
	},
	"ship_mode": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["sm_type"] = shipTypes[(i-1)%len(shipTypes)]
		v["sm_code"] = pick(r, shipCodes)
		v["sm_carrier"] = carriers[(i-1)%len(carriers)]
	},
	"warehouse": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["w_warehouse_name"] = pick(r, warehouseNames)
		v["w_warehouse_sq_ft"] = fmt.Sprint(50000 + r.IntN(950000))
		place(r, "w_", v)
	},
	"customer_demographics": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["cd_gender"] = pick(r, []string{"M", "F"})
		v["cd_marital_status"] = pick(r, []string{"M", "S", "D", "W", "U"})
		v["cd_education_status"] = pick(r, educations)
		v["cd_purchase_estimate"] = fmt.Sprint(500 * (1 + r.IntN(20)))
		v["cd_credit_rating"] = pick(r, []string{"Good", "Low Risk", "High Risk", "Unknown"})
		for _, c := range []string{"cd_dep_count", "cd_dep_employed_count", "cd_dep_college_count"} {
			v[c] = fmt.Sprint(r.IntN(7))
		}
	},
	"household_demographics": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["hd_income_band_sk"] = g.fk(r, "income_band")
		v["hd_buy_potential"] = pick(r, buyPotentials)
		v["hd_dep_count"] = fmt.Sprint(r.IntN(10))
		v["hd_vehicle_count"] = fmt.Sprint(r.IntN(6) - 1)
	},
	"customer_address": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		place(r, "ca_", v)
		v["ca_location_type"] = pick(r, []string{"apartment", "condo", "single family"})
	},
	"customer": customerRule,
	"item":     itemRule,
	"promotion": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		for _, ch := range []string{"dmail", "email", "catalog", "tv", "radio", "press", "event", "demo"} {
			v["p_channel_"+ch] = pick(r, []string{"Y", "N", "N"})
		}
		v["p_promo_name"] = pick(r, words)
		v["p_cost"] = money(100000 - r.IntN(1000))
		v["p_response_target"] = "1"
	},
	"store": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["s_store_name"] = pick(r, syllables)
		v["s_number_employees"] = fmt.Sprint(200 + r.IntN(100))
		v["s_floor_space"] = fmt.Sprint(5000000 + r.IntN(5000000))
		v["s_hours"] = pick(r, []string{"8AM-4PM", "8AM-12AM", "8AM-8AM"})
		v["s_market_id"] = fmt.Sprint(1 + r.IntN(10))
		v["s_company_id"], v["s_company_name"] = "1", "Unknown"
		v["s_division_id"], v["s_division_name"] = "1", "Unknown"
		v["s_geography_class"] = "Unknown"
		v["s_closed_date_sk"] = null
		v["s_tax_percentage"] = money(r.IntN(12))
		place(r, "s_", v)
		if r.IntN(10) < 7 {
			v["s_state"], v["s_county"] = "TN", "Williamson County"
		}
	},
	"call_center": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["cc_name"] = pick(r, []string{"NY Metro", "Mid Atlantic", "North Midwest", "California", "Pacific Northwest", "Hawaii/Alaska"})
		v["cc_class"] = pick(r, []string{"small", "medium", "large"})
		v["cc_manager"] = pick(r, firstNames) + " " + pick(r, lastNames)
		place(r, "cc_", v)
		v["cc_county"] = "Williamson County"
	},
	"catalog_page": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["cp_department"] = "DEPARTMENT"
		v["cp_catalog_number"] = fmt.Sprint(1 + (i-1)/20)
		v["cp_catalog_page_number"] = fmt.Sprint(1 + (i-1)%20)
		v["cp_type"] = pick(r, []string{"bi-annual", "quarterly", "monthly"})
	},
	"web_site": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["web_name"] = fmt.Sprintf("site_%d", (i-1)/2)
		v["web_company_name"] = pick(r, syllables)
		v["web_close_date_sk"] = null
		place(r, "web_", v)
	},
	"web_page": func(g *gen, r *rand.Rand, i int, v map[string]string) {
		v["wp_char_count"] = fmt.Sprint(2000 + r.IntN(5500))
		v["wp_customer_sk"] = null
		if r.IntN(4) == 0 {
			v["wp_customer_sk"] = g.fk(r, "customer")
		}
		v["wp_type"] = pick(r, []string{"welcome", "protected", "dynamic", "feedback", "general", "order", "ad"})
	},
}

// customerRule fills a customer.
func customerRule(g *gen, r *rand.Rand, i int, v map[string]string) {
	first, last := pick(r, firstNames), pick(r, lastNames)
	v["c_salutation"] = pick(r, []string{"Mr.", "Mrs.", "Ms.", "Miss", "Dr.", "Sir"})
	v["c_first_name"], v["c_last_name"] = first, last
	v["c_preferred_cust_flag"] = pick(r, []string{"Y", "N"})
	v["c_birth_day"] = fmt.Sprint(1 + r.IntN(28))
	v["c_birth_month"] = fmt.Sprint(1 + r.IntN(12))
	v["c_birth_year"] = fmt.Sprint(1924 + r.IntN(69))
	v["c_birth_country"] = pick(r, countries)
	v["c_login"] = null
	v["c_email_address"] = fmt.Sprintf("%s.%s@%s.com", first, last, pick(r, syllables))
}

// itemRule fills an item: category, class and brand agree (brand ids as
// dsdgen's category*1000000 + class*1000 + n).
func itemRule(g *gen, r *rand.Rand, i int, v map[string]string) {
	cat := r.IntN(len(categories))
	cls := r.IntN(len(categories[cat].classes))
	n := 1 + r.IntN(15)
	v["i_rec_start_date"], v["i_rec_end_date"] = "1997-10-27", null
	price := 99 + r.IntN(9900)
	if r.IntN(8) == 0 {
		price = 99 + r.IntN(60) // about Q21's band, 0.99-1.49
	}
	manufact := 1 + r.IntN(1000)
	if r.IntN(2) == 0 {
		manufact = pick(r, hotManufacts)
	}
	// The first stocked items are planted for the inventory queries: Q37's
	// and Q82's manufacturers and price bands, and Q21's price band.
	switch {
	case i <= 4:
		manufact, price = []int{677, 940, 694, 808}[i-1], 6800+r.IntN(3000)
	case i <= 8:
		manufact, price = []int{129, 270, 821, 423}[i-5], 6200+r.IntN(3000)
	case i <= 12:
		price = 99 + r.IntN(50)
	}
	v["i_current_price"] = money(price)
	v["i_wholesale_cost"] = money(price * (30 + r.IntN(60)) / 100)
	v["i_category_id"], v["i_category"] = fmt.Sprint(cat+1), categories[cat].name
	v["i_class_id"], v["i_class"] = fmt.Sprint(cls+1), categories[cat].classes[cls]
	v["i_brand_id"] = fmt.Sprint((cat+1)*1000000 + (cls+1)*1000 + n)
	v["i_brand"] = fmt.Sprintf("%s #%d", brandStems[(cat+cls)%len(brandStems)], n)
	v["i_manufact_id"] = fmt.Sprint(manufact)
	v["i_manufact"] = pick(r, syllables) + pick(r, syllables)
	v["i_size"] = pick(r, sizes)
	v["i_color"] = pick(r, colors)
	v["i_units"] = pick(r, units)
	v["i_container"] = "Unknown"
	v["i_manager_id"] = fmt.Sprint(1 + r.IntN(30))
	v["i_product_name"] = pick(r, syllables) + pick(r, syllables) + pick(r, syllables)
}

// place fills the address columns (street, city, county, state, zip,
// country, gmt offset) of a row whose columns start with prefix.
func place(r *rand.Rand, prefix string, v map[string]string) {
	st := skewed(r, states)
	v[prefix+"street_number"] = fmt.Sprint(1 + r.IntN(999))
	v[prefix+"street_name"] = pick(r, words)
	v[prefix+"street_type"] = pick(r, []string{"Street", "Avenue", "Lane", "Road", "Way", "Parkway"})
	v[prefix+"suite_number"] = fmt.Sprintf("Suite %d", r.IntN(500))
	v[prefix+"city"] = pick(r, cities)
	v[prefix+"county"] = skewed(r, counties)
	v[prefix+"state"] = st
	v[prefix+"zip"] = skewed(r, zips)
	v[prefix+"country"] = "United States"
	v[prefix+"gmt_offset"] = money(-100 * (5 + r.IntN(3)))
}

// skewed picks from list, half the time among its first four values: the
// data has a few large states, counties and zips, as real data does, so
// that queries counting per state or zip (Q06, Q08) find groups above
// their HAVING thresholds.
func skewed(r *rand.Rand, list []string) string {
	if r.IntN(2) == 0 {
		return list[r.IntN(min(4, len(list)))]
	}
	return pick(r, list)
}
