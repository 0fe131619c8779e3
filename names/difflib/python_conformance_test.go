package difflib

// Conformance of Ratio against CPython 3.11's difflib.SequenceMatcher(None,
// a, b).ratio(): the vectors were produced by Python itself, including the
// autojunk case (len(b) >= 200). CrewAI accepts a tool when ratio > 0.85
// (crewai-semantics.md §5.1 step 2), so the float must match exactly.

import "testing"

func TestConformancePythonRatio(t *testing.T) {
	for _, v := range pythonRatioVectors {
		if got := Ratio(v.a, v.b); got != v.ratio {
			t.Errorf("ratio(%q, %q) = %v, want %v", v.a, v.b, got, v.ratio)
		}
	}
}

var pythonRatioVectors = []struct {
	a, b  string
	ratio float64
}{
	{"get_forecast", "getforecast", 0.9565217391304348},
	{"get_forecast", "get_forcast", 0.9565217391304348},
	{"lookup_stock", "lookup_stocks", 0.96},
	{"search", "advanced_search", 0.5714285714285714},
	{"python_servers_inventory_py_lookup_stock", "lookup_stock", 0.46153846153846156},
	{"delegate_work_to_coworker", "delegate_work", 0.6842105263157895},
	{"ask_question_to_coworker", "ask_question_to_co_worker", 0.9795918367346939},
	{"abcd", "bcda", 0.75},
	{"weather_now", "now_weather", 0.6363636363636364},
	{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabb", 0.9803921568627451},
	{"read_file", "read_files", 0.9473684210526315},
	{"send_email", "sendemail", 0.9473684210526315},
	{"x", "", 0.0},
	{"bcaaa_abaa", "cabacaabacaba", 0.6956521739130435},
	{"b_cba_bab_aaabcc_", "c__bbba_c_c_aa", 0.45161290322580644},
	{"cb_bccaa___ccaa_", "aa_c_c_ac_bacab", 0.45161290322580644},
	{"_bbcccabcc_bc_c_cbbabbbb", "", 0.0},
	{"b__abc__baccccc", "cca", 0.2222222222222222},
	{"abcba_", "aaaba_aabcb___caacc", 0.4},
	{"c_aba__cbab_ba_", "a__b_b_bbbcbbc_aa_c_", 0.34285714285714286},
	{"_c__ab", "bcb", 0.4444444444444444},
	{"bcac_aacbc", "bc_acccabbbabcbc_bbaaabcbba_", 0.42105263157894735},
	{"_b__cb", "_", 0.2857142857142857},
	{"ccbbacbabbbcaa_caabb_aacaac_", "b_ccb_bcbcacc_abcab", 0.5106382978723404},
	{"_ab_b_bcbaccbbbcc_cb_", "a_a_ccac__", 0.5161290322580645},
	{"aabaa__ab_bc_cbc", "_a_abca_aa_aba_aca_c_b", 0.42105263157894735},
	{"b", "ab_abb__b_cb__a_aaabcbcaccc_bb", 0.06451612903225806},
	{"bbc_abaa_c", "aac_b", 0.4},
	{"_acbb_ca____ba_b_ba_ca", "_bbaa_abcaca__b", 0.43243243243243246},
	{"bc", "_cb_bacbabaaab_accaabc_a", 0.15384615384615385},
	{"aaac_a_bbbccca", "_abab___bacac_a", 0.41379310344827586},
	{"bc__cccab_aca_cac_cbba", "ab__b_a_bcccabaccc", 0.6},
	{"bc_c_a_a_", "_caba___acca_c_a_aa_bb_c", 0.5454545454545454},
	{"_b_cacbaaccb_cab", "cc___", 0.2857142857142857},
	{"_cb_ccab", "babcbc_ccbbbab_a_b__", 0.5},
	{"bacccbc__ac__bba_bcccc_ab", "c", 0.07692307692307693},
	{"ccaacccbabbbacaaabba_b", "_caaa_bc_baa_c__bcbb", 0.2857142857142857},
	{"", "c_aabcca_bc_bca_c_cba_abcb_bbc", 0.0},
	{"__acbbc", "abcababcaabcc", 0.3},
	{"_aab_bbca_c__cbaaa_a_cabc__c", "ac", 0.13333333333333333},
	{"_cb__c", "", 0.0},
	{"cbcacacaa_ba____a___", "aaabaccc_", 0.3448275862068966},
	{"ccbcba_bb__c_abcbbcaac_bcaa_a", "acccbb", 0.22857142857142856},
	{"ccba", "_______bcbbbbb_b_ac_bbac", 0.21428571428571427},
	{"a", "", 0.0},
	{"bc_a_baabba_bc_", "aa_ba__bab_aba_c_b_abacc", 0.5641025641025641},
	{"ca", "cbabc_c__ca__cca_bccbacbc", 0.14814814814814814},
	{"ac_", "bbaabca_bb__bb", 0.35294117647058826},
	{"aaccb_bac_acabbcbcbbacbc_abbb", "a", 0.06666666666666667},
	{"_acc_c_bcc_ccbaaccbcc", "bccaab_c_acaaba_aacbaaabbc", 0.425531914893617},
	{"bba__b__c", "_cb_", 0.46153846153846156},
	{"b__abbcb__cb_aa_ca_", "c__c_b__acbba____", 0.5555555555555556},
	{"aabb_cc_abcbaaaa__a_bc_", "bb_cbbabbcaab_c_aa", 0.3902439024390244},
	{"_ece_edee_dbbaaaeadbbbaaaee_bbdbee_e__debecac_a_d_eadd_da__dbbacb_aac__c_ac_e_d_ecc_baeabcb_bb_cbdcebd___edde_aad_becbdeeaebbaaaaebcb_aaab___a_a_aaecbe_a_dabbbaaa_a__cdaba_bcccdcaccca_cceedce_adadeacd_aeeb_aecbdaebcaacdad_bdececebcb_bdba_ad_ea_ccadd_", "ad_acbccdeebd_bdbee_e_acecebd_e_cbdd_cebbcd__bebcc_eb_bb_ceecbbcbc_ab_abdbbc_cdcba_acbddaadd_be_cdabce_da_bd_ee__db_____eb_b_addcc__adbd___bcdddaede__b_caddaacebb_becaedeb_dea_cecd_db_bdea_ec_accddaaadd___cecabc_debddbbba_bd_e_bbc__ddce_bdcbc_d_cd_bda_ccb_ccdd", 0.0},
}
